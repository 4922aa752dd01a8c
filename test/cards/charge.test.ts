// The saved-card charge scenarios on the embedded engine.
import { describeCardCharges } from './charge.scenarios';

describeCardCharges('embedded');
