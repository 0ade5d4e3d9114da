// Lints an OpenAPI document with Redocly's linter and a config; prints the problems and exits
// 1 when there is any (a warning too), 0 otherwise.
// usage: node lint.mjs CONFIG DOCUMENT (from a directory whose node_modules has
// @redocly/openapi-core: lint_test.sh copies it there)
import { formatProblems, getTotals, lint, loadConfig } from '@redocly/openapi-core';

const [configPath, document] = process.argv.slice(2);
if (!configPath || !document) {
  console.error('usage: node lint.mjs CONFIG DOCUMENT');
  process.exit(2);
}
const config = await loadConfig({ configPath });
const problems = await lint({ ref: document, config });
const shown = problems.filter((p) => p.severity !== 'off');
formatProblems(shown, { format: 'stylish', totals: getTotals(shown), version: '' });
console.error(`${document}: ${shown.length} problem(s)`);
process.exit(shown.length === 0 ? 0 : 1);
