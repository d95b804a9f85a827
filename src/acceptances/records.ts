import type { Connection, Edge } from '../connections/index.ts';
import type { ActorRecord } from '../platform/records.ts';

/** A Document Acceptance as `GET /v1/acceptances` returns it. */
export interface AcceptanceRecord {
  id: string;
  documentId?: string | null;
  documentVersion?: string | null;
  acceptorType?: string | null;
  acceptorId?: string | null;
  businessAccountId?: string | null;
  scopes?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
  accepted?: boolean | null;
  respondedAt?: string | null;
  createdBy?: ActorRecord | null;
  createdAt?: string | null;
  downloadUrl?: string | null;
}

export type AcceptanceConnectionModel = Connection<AcceptanceRecord>;
export type AcceptanceEdgeModel = Edge<AcceptanceRecord>;
