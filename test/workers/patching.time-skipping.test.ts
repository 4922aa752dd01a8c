// Patching and replay on the real Core, on Temporal's time-skipping test server
// (patching-scenarios.ts). Skipped, saying so, where the server is not installed.
import { patchingScenarios } from './patching-scenarios';

patchingScenarios("Temporal's time-skipping test server: patching and replay on the real Core", 'time-skipping-server');
