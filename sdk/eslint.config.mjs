// ESLint 10 takes each file's nearest config: the repository's rules for the SDK's sources, and
// not its build output (dist/, made by `npm run build:sdk` and by `npm pack`).
import repository from '../eslint.config.mjs';

export default [{ ignores: ['dist/**'] }, ...repository];
