// The checkout lifetime scenarios on the embedded engine.
import { describeCheckoutLifetime } from './lifetime.scenarios';

describeCheckoutLifetime('embedded');
