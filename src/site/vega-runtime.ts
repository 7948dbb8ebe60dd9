/**
 * Charts in the dashboard. Vega-Lite specs are compiled to Vega here, when the site is built, so the page
 * ships only Vega's runtime (vega.min.js, about 0.5 MB, inlined from node_modules) and not the Vega-Lite
 * compiler as well (another 0.26 MB, needed only to do at view time what is done once here); a spec that
 * does not compile fails the build, where a test sees it, rather than in a reader's browser.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compile, type TopLevelSpec } from 'vega-lite';

/** A chart compiled for the page: its Vega spec, as JSON. */
export type VegaSpec = ReturnType<typeof compile>['spec'];

/** Compiles a Vega-Lite spec to Vega; Vega-Lite's warnings (a field it dropped, a bad scale) become an error. */
export function toVega(spec: TopLevelSpec): VegaSpec {
  const warnings: string[] = [];
  const collect = (...args: readonly unknown[]) => {
    warnings.push(args.map(String).join(' '));
    return logger;
  };
  // vega-util's logger interface; only warnings and errors say something is wrong with the spec.
  const logger = {
    level: (() => logger) as never,
    error: collect,
    warn: collect,
    info: () => logger,
    debug: () => logger,
  };
  const vega = compile(spec, { logger: logger as never }).spec;
  if (warnings.length > 0) throw new Error(`a chart's Vega-Lite spec does not compile cleanly: ${warnings.join('; ')}`);
  return vega;
}

/**
 * Vega's runtime, the UMD build that defines `window.vega`, to inline in a <script> element. It must hold
 * nothing that ends or bends that element (`</script`, `<!--`); a newer build that did would be refused here.
 */
export function vegaRuntime(): string {
  const file = fileURLToPath(new URL('vega.min.js', import.meta.resolve('vega')));
  const js = readFileSync(file, 'utf8');
  const bad = /<\/script|<!--/i.exec(js);
  if (bad) throw new Error(`${file} contains '${bad[0]}', which would end its inline <script> element early`);
  return js;
}
