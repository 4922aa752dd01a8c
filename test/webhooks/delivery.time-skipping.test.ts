// The webhook delivery scenarios on Temporal's time-skipping test server (skipped, saying so,
// where the binary is not installed).
import { describeWebhookDelivery } from './delivery.scenarios';

describeWebhookDelivery('time-skipping-server');
