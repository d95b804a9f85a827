import type { Connection, Edge } from '../connections/index.ts';
import type { PlatformSchema, ReceivedRecord } from '../platform/records.ts';

/** A Document Acceptance as `GET /v1/acceptances` returns it. */
export type AcceptanceRecord = ReceivedRecord<PlatformSchema['DocumentAcceptance']>;

export type AcceptanceConnectionModel = Connection<AcceptanceRecord>;
export type AcceptanceEdgeModel = Edge<AcceptanceRecord>;
