import type { CodegenConfig } from '@graphql-codegen/cli';
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

const config: CodegenConfig = {
  schema: './schema.graphql',
  documents: ['src/**/*.tsx'],
  generates: {
    './src/gql/': {
      preset: 'client',
      config: { scalars: { DateTime: 'string', Date: 'string', JSONObject: 'Record<string, unknown>' }, enumsAsTypes: true, useTypeImports: true },
      // Fragment masking is the preset's default: a component sees only its own fragment's fields, which
      // getFragmentData unmasks (the preset's `useFragment`, renamed: it is no hook, and Apollo has one of that name).
      // Apollo Client adds __typename to what it sends; the stored texts must hold it too.
      documentTransforms: [addTypenameSelectionDocumentTransform],
      presetConfig: { fragmentMasking: { unmaskFunctionName: 'getFragmentData' }, persistedDocuments: { hashAlgorithm: 'sha256' } },
    },
  },
};
export default config;
