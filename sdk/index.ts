// What the package exports for merchants' servers: webhook verification.
export { verifyWebhook, WebhookVerificationError, SIGNATURE_HEADER, DEFAULT_TOLERANCE_SECONDS } from '../domain/webhook-signature';
export type { WebhookVerificationFailure } from '../domain/webhook-signature';
