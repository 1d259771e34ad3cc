import type { Language } from '../domain/errors.js';

const SUPPORTED: Language[] = ['en', 'de'];

/** Picks en or de from Accept-Language by quality (RFC 9110 §12.5.4); English by default. */
export function negotiateLanguage(header: string | undefined): Language {
  if (!header) return 'en';
  const ranked = header
    .split(',')
    .map((part, order) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number(q.slice(2)) : 1;
      return { primary: tag.split('-')[0]!, quality: Number.isFinite(quality) ? quality : 0, order };
    })
    .filter((r) => r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.order - b.order);
  for (const r of ranked) {
    if ((SUPPORTED as string[]).includes(r.primary)) return r.primary as Language;
    if (r.primary === '*') return 'en';
  }
  return 'en';
}
