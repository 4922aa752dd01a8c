// The refund outcome scenarios on the embedded engine.
import { describeRefundOutcomes } from './outcome.scenarios';

describeRefundOutcomes('embedded');
