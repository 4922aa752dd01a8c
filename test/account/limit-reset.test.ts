// The monthly-limit reset scenarios on the embedded engine.
import { describeLimitReset } from './limit-reset.scenarios';

describeLimitReset('embedded');
