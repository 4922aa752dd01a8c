import { ERROR_CODES, REASONS } from '../../domain/errors';
import { named, type JsonSchema } from './json-schema';

export const errorSchema: JsonSchema = named('Error', {
  type: 'object',
  description: 'Every error answer. Match on `reason` before `code`; `message` may be reworded.',
  required: ['code', 'message', 'docUrl', 'traceId'],
  properties: {
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    reason: { type: 'string', enum: Object.keys(REASONS) },
    message: { type: 'string' },
    docUrl: { type: 'string', format: 'uri' },
    traceId: { type: 'string', description: 'Same as the x-trace-id header.' },
    fields: {
      type: 'array',
      description: 'Validation failures only; `path` is empty for whole-object problems such as unrecognized keys.',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
});
