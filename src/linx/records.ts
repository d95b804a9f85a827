import type { Connection, Edge } from '../connections/index.ts';
import type { PlatformSchema, ReceivedRecord } from '../platform/records.ts';

/** A LinX Batch Detail as `GET /v2/linx/workflow-batches` returns it. */
export type LinxBatchRecord = ReceivedRecord<PlatformSchema['LinxBatchDetail']>;

export type LinxBatchConnectionModel = Connection<LinxBatchRecord>;
export type LinxBatchEdgeModel = Edge<LinxBatchRecord>;
