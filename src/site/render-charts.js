// The dashboard's one script of its own, inlined after Vega's runtime (src/site/site-page.ts): renders each
// chart's Vega spec (compiled from Vega-Lite when the site was built) into its element as SVG. Strings from
// the data reach the page only through Vega's SVG renderer, which sets them as text and attribute values,
// and its default tooltip, a title attribute. When every chart is drawn (or one failed) the <html> element
// says so in data-charts ("rendered" or "failed"), for the browser test.
(() => {
  const root = document.documentElement;
  const source = document.getElementById('fusebench-charts');
  const charts = source ? JSON.parse(source.textContent || '[]') : [];
  const views = charts.map(({ id, spec }) => {
    const el = document.getElementById(id);
    if (!el) return Promise.reject(new Error(`no element #${id} for its chart`));
    const view = new vega.View(vega.parse(spec), { renderer: 'svg', container: el, hover: true });
    return view.runAsync().catch((e) => {
      el.textContent = `This chart could not be drawn: ${e.message}`;
      throw e;
    });
  });
  Promise.all(views).then(
    () => {
      root.dataset.charts = 'rendered';
    },
    (e) => {
      root.dataset.charts = 'failed';
      console.error(e);
    },
  );
})();
