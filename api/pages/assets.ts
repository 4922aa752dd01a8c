// The pages' static files: their stylesheets (see htmlDocument), and Sinhala and Tamil type
// served from the @fontsource packages, since a phone without these fonts would otherwise show
// empty boxes. Only the Sinhala and Tamil subsets (regular and bold) are declared; Latin text
// keeps the system font.
import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import { STYLESHEETS_PATH, stylesheetNamed } from '../../web/html';

const FAMILIES = [
  { family: 'Noto Sans Sinhala', pkg: '@fontsource/noto-sans-sinhala', subset: 'sinhala' },
  { family: 'Noto Sans Tamil', pkg: '@fontsource/noto-sans-tamil', subset: 'tamil' },
] as const;
const WEIGHTS = [400, 700] as const;

export const FONTS_PATH = '/assets/fonts';

/** The fonts' family names, for a page's font-family list. */
export const SCRIPT_FONT_FAMILIES = FAMILIES.map((f) => `"${f.family}"`).join(',');

/** The files the pages may load, by their public name. */
const files = new Map<string, string>(
  FAMILIES.flatMap(({ pkg, subset }) =>
    WEIGHTS.map((weight) => {
      const name = `${pkg.split('/')[1]}-${subset}-${weight}-normal.woff2`;
      return [name, require.resolve(`${pkg}/files/${name}`)] as const;
    }),
  ),
);

/**
 * One @font-face per family and weight, limited to the script's own characters (the package's
 * unicode.json): listed first in a page's fonts, they draw Sinhala and Tamil, and everything else
 * falls through to the system font. Listed after system-ui instead, Chromium on Linux drew the
 * script in the system font's empty boxes.
 */
export const FONT_FACE_CSS = FAMILIES.flatMap(({ family, pkg, subset }) => {
  const ranges = (JSON.parse(readFileSync(require.resolve(`${pkg}/unicode.json`), 'utf8')) as Record<string, string>)[subset];
  return WEIGHTS.map(
    (weight) =>
      `@font-face{font-family:'${family}';font-style:normal;font-display:swap;font-weight:${weight};src:url(${FONTS_PATH}/${pkg.split('/')[1]}-${subset}-${weight}-normal.woff2) format('woff2');unicode-range:${ranges}}`,
  );
}).join('\n');

// A year: a font's name is one subset and weight (a newer package version renders the same
// script), and a stylesheet's name is the hash of its content.
const CACHE_FOR_A_YEAR = 'public, max-age=31536000';

export function assetsRouter(): Router {
  const router = new Router({ strict: true, sensitive: true });
  router.get(`${FONTS_PATH}/:name`, (ctx) => {
    const file = files.get(ctx.params.name!);
    if (file === undefined) return;
    ctx.type = 'font/woff2';
    ctx.set('Cache-Control', CACHE_FOR_A_YEAR);
    ctx.body = readFileSync(file);
  });
  router.get(`${STYLESHEETS_PATH}/:name`, (ctx) => {
    const css = stylesheetNamed(ctx.params.name!);
    if (css === undefined) return;
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', CACHE_FOR_A_YEAR);
    ctx.body = css;
  });
  return router;
}
