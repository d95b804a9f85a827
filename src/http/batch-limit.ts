import type { IncomingMessage } from 'node:http';
import { ErrorCode } from '../errors.ts';
import { refuse } from './refusal.ts';
import type { Stage } from './stage.ts';

/** The batch limit, when batching is allowed (Apollo itself refuses arrays when it is not). */
export function batchLimitStage(maxBatchSize: number): Stage {
  return (req, res, next) => {
    const { body } = req as IncomingMessage & { body?: unknown };
    if (Array.isArray(body) && body.length > maxBatchSize) {
      refuse(res, 400, `A batch may hold at most ${maxBatchSize} operations`, { code: ErrorCode.BAD_REQUEST, limit: 'MAX_BATCH_SIZE', max: maxBatchSize });
      return;
    }
    next();
  };
}
