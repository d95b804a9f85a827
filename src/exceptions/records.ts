import type { Connection, Edge } from '../connections/index.ts';
import type { PlatformSchema, Received, ReceivedRecord } from '../platform/records.ts';

export type AssigneeRecord = Received<PlatformSchema['Assignee']>;
export type NoteRecord = Received<PlatformSchema['Note']>;

/** An Exception as `GET /exceptions` returns it. */
export type ExceptionRecord = ReceivedRecord<PlatformSchema['Exception']>;

export type ExceptionConnectionModel = Connection<ExceptionRecord>;
export type ExceptionEdgeModel = Edge<ExceptionRecord>;
