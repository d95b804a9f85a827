import type { Connection, Edge } from '../connections/index.ts';
import type { ActorRecord } from '../platform/records.ts';

/** A LinX Batch Detail as `GET /v2/linx/workflow-batches` returns it. */
export interface LinxBatchRecord {
  id: string;
  status?: string | null;
  templateId?: string | null;
  templateVersionId?: string | null;
  templateVersion?: number | null;
  templateDisplayName?: string | null;
  activeRequestsCount?: number | null;
  cancelledRequestsCount?: number | null;
  completedRequestsCount?: number | null;
  declinedRequestsCount?: number | null;
  expiredRequestsCount?: number | null;
  failedRequestsCount?: number | null;
  rejectedRequestsCount?: number | null;
  totalRequestsCount?: number | null;
  createdBy?: ActorRecord | null;
  createdAt?: string | null;
  updatedBy?: ActorRecord | null;
  updatedAt?: string | null;
}

export type LinxBatchConnectionModel = Connection<LinxBatchRecord>;
export type LinxBatchEdgeModel = Edge<LinxBatchRecord>;
