// The checkout lifetime scenarios on Temporal's time-skipping test server (skipped, saying so,
// where the binary is not installed).
import { describeCheckoutLifetime } from './lifetime.scenarios';

describeCheckoutLifetime('time-skipping-server');
