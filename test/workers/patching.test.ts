// Patching and replay on the real Core, on the embedded engine (patching-scenarios.ts).
import { patchingScenarios } from './patching-scenarios';

patchingScenarios('embedded engine: patching and replay on the real Core', 'embedded');
