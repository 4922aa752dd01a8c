// The refund outcome scenarios on Temporal's time-skipping test server (skipped, saying so, where
// the binary is not installed).
import { describeRefundOutcomes } from './outcome.scenarios';

describeRefundOutcomes('time-skipping-server');
