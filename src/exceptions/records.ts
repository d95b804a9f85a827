import type { Connection, Edge } from '../connections/index.ts';
import type { ActorRecord } from '../platform/records.ts';

export interface AssigneeRecord {
  id?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
}

export interface NoteRecord {
  id?: string | null;
  entityId?: string | null;
  entityType?: string | null;
  title?: string | null;
  contentText?: string | null;
  businessAccountId?: string | null;
  createdBy?: ActorRecord | null;
  createdAt?: string | null;
  updatedBy?: ActorRecord | null;
  updatedAt?: string | null;
}

/** An Exception as `GET /exceptions` returns it. */
export interface ExceptionRecord {
  id: string;
  entityId?: string | null;
  businessAccountId?: string | null;
  assignedTo?: AssigneeRecord | null;
  category?: string | null;
  type?: string | null;
  notes?: NoteRecord | null;
  status?: string | null;
  description?: string | null;
  createdBy?: ActorRecord | null;
  createdAt?: string | null;
  updatedBy?: ActorRecord | null;
  updatedAt?: string | null;
}

export type ExceptionConnectionModel = Connection<ExceptionRecord>;
export type ExceptionEdgeModel = Edge<ExceptionRecord>;
