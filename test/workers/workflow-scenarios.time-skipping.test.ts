// The engine's scenario suite (workflow-scenarios.ts) on Temporal's own time-skipping test server,
// so what the embedded engine does is checked against the real thing. Skipped, saying so, where
// scripts/install-temporal.sh has not installed the server.
import { workflowScenarios } from './workflow-scenarios';

workflowScenarios("Temporal's time-skipping test server: workflow scenarios", 'time-skipping-server');
