import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { accountOf } from '../support/expected.ts';
import { startStack, type Stack } from '../support/stack.ts';

// A document update's broken rules come from two places: the gateway's own
// checks (nothing is sent) and the platform's answer (rules only it can judge,
// such as the stored type). A client shows both the same way, so both read as a
// sentence naming the field.

const UPDATE = `mutation($input: UpdateDocumentInput!) { updateDocument(input: $input) { document { id } userErrors { field message code } } }`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

const passport = () => stack.sandbox.store.documents(accountOf(stack.sandbox, stack.acme)).find((d) => d.documentType === 'passport')!;

describe('userErrors of updateDocument', () => {
  it('read the same way whether the gateway or the platform found them', async () => {
    stack.sandbox.resetRequests();
    const gatewaySide = await stack.gql(UPDATE, { input: { id: passport().id, documentType: 'PASSPORT', name: 'Passport', issuingCountryCode: 'FR', expiryDate: '2030-01-01' } });
    expect(gatewaySide.body).toEqual({
      data: { updateDocument: { document: null, userErrors: [{ field: ['input', 'number'], message: 'number is required for PASSPORT documents', code: 'REQUIRED' }] } },
    });
    expect(stack.platformCalls()).toEqual([]);

    // Valid for an OTHER document, so only the platform, which knows the stored type is passport, refuses it.
    const platformSide = await stack.gql(UPDATE, { input: { id: passport().id, documentType: 'OTHER', name: 'Passport', description: 'A passport' } });
    expect(platformSide.body).toEqual({
      data: {
        updateDocument: {
          document: null,
          userErrors: [
            { field: ['input', 'documentType'], message: 'documentType cannot change from passport', code: 'DOCUMENT_TYPE_IMMUTABLE' },
            { field: ['input', 'number'], message: 'number is required', code: 'REQUIRED' },
            { field: ['input', 'issuingCountryCode'], message: 'issuingCountryCode is required', code: 'REQUIRED' },
            { field: ['input', 'expiryDate'], message: 'expiryDate is required', code: 'REQUIRED' },
          ],
        },
      },
    });
    expect(stack.platformCalls().map((call) => call.method)).toEqual(['PUT']);
  });
});
