import { kanaKind, romaji } from './kana.js';

/**
 * Spells a name in ASCII for an id: accents dropped (NFKD, then the combining marks removed), the
 * Latin letters that do not decompose spelled out (ß → ss, ø → o, þ → th), Greek and Cyrillic
 * letters transliterated, Hangul and kana romanised. German umlauts become the plain letter
 * (Ü → U), as in most URL slugs. Letters of any other script (Han, Arabic, …) are left out and
 * named in `untold`, so the caller can say which script the id stands for.
 */
export interface Transliterated {
  /** The name in ASCII; what could not be spelled is a space. */
  text: string;
  /** The scripts (lowercase words: `han`, `kana`, `arabic`, …) whose letters were left out, in order of appearance. */
  untold: string[];
}

/** Latin letters that NFKD does not take apart. */
const LATIN: Record<string, string> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  ø: 'o',
  Ø: 'O',
  œ: 'oe',
  Œ: 'OE',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'Th',
  ı: 'i',
  ĸ: 'k',
  ŋ: 'ng',
  Ŋ: 'Ng',
  ħ: 'h',
  Ħ: 'H',
  ŧ: 't',
  Ŧ: 'T',
  ſ: 's',
  ƒ: 'f',
  ĳ: 'ij',
  Ĳ: 'IJ',
  ŀ: 'l',
  Ŀ: 'L',
  ɐ: 'a',
  ə: 'e',
  Ə: 'E',
  ʒ: 'z',
  Ʒ: 'Z',
};

const GREEK: Record<string, string> = {
  α: 'a',
  β: 'v',
  γ: 'g',
  δ: 'd',
  ε: 'e',
  ζ: 'z',
  η: 'i',
  θ: 'th',
  ι: 'i',
  κ: 'k',
  λ: 'l',
  μ: 'm',
  ν: 'n',
  ξ: 'x',
  ο: 'o',
  π: 'p',
  ρ: 'r',
  σ: 's',
  ς: 's',
  τ: 't',
  υ: 'y',
  φ: 'f',
  χ: 'ch',
  ψ: 'ps',
  ω: 'o',
};

const CYRILLIC: Record<string, string> = {
  а: 'a',
  б: 'b',
  в: 'v',
  г: 'g',
  д: 'd',
  е: 'e',
  ё: 'e',
  ж: 'zh',
  з: 'z',
  и: 'i',
  й: 'i',
  к: 'k',
  л: 'l',
  м: 'm',
  н: 'n',
  о: 'o',
  п: 'p',
  р: 'r',
  с: 's',
  т: 't',
  у: 'u',
  ф: 'f',
  х: 'kh',
  ц: 'ts',
  ч: 'ch',
  ш: 'sh',
  щ: 'shch',
  ъ: '',
  ы: 'y',
  ь: '',
  э: 'e',
  ю: 'yu',
  я: 'ya',
  є: 'ye',
  і: 'i',
  ї: 'yi',
  ґ: 'g',
  ў: 'u',
  ђ: 'dj',
  ј: 'j',
  љ: 'lj',
  њ: 'nj',
  ћ: 'c',
  џ: 'dz',
  ѕ: 'dz',
};

/** Revised Romanisation of Korean, letter by letter (no sound changes between syllables). */
const HANGUL_LEAD = [
  'g',
  'kk',
  'n',
  'd',
  'tt',
  'r',
  'm',
  'b',
  'pp',
  's',
  'ss',
  '',
  'j',
  'jj',
  'ch',
  'k',
  't',
  'p',
  'h',
];
const HANGUL_VOWEL = [
  'a',
  'ae',
  'ya',
  'yae',
  'eo',
  'e',
  'yeo',
  'ye',
  'o',
  'wa',
  'wae',
  'oe',
  'yo',
  'u',
  'wo',
  'we',
  'wi',
  'yu',
  'eu',
  'ui',
  'i',
];
const HANGUL_TAIL = [
  '',
  'k',
  'k',
  'k',
  'n',
  'n',
  'n',
  't',
  'l',
  'k',
  'm',
  'l',
  'l',
  'l',
  'p',
  'l',
  'm',
  'p',
  'p',
  't',
  't',
  'ng',
  't',
  't',
  'k',
  't',
  'p',
  't',
];

/** Scripts with no table here, by the word an id uses for them; the first that matches names a letter. */
const SCRIPTS: [string, RegExp][] = [
  ['han', /\p{Script=Han}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['thai', /\p{Script=Thai}/u],
  ['devanagari', /\p{Script=Devanagari}/u],
  ['bengali', /\p{Script=Bengali}/u],
  ['tamil', /\p{Script=Tamil}/u],
  ['georgian', /\p{Script=Georgian}/u],
  ['armenian', /\p{Script=Armenian}/u],
  ['ethiopic', /\p{Script=Ethiopic}/u],
];

const LETTER = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;

export function transliterate(name: string): Transliterated {
  const untold: string[] = [];
  let text = '';
  const chars = [...name.normalize('NFC')];
  for (let i = 0; i < chars.length; i += 1) {
    const char = chars[i] ?? '';
    const kind = kanaKind(char);
    if (kind !== null) {
      let run = char;
      while (i + 1 < chars.length && kanaKind(chars[i + 1] ?? '') === kind) run += chars[(i += 1)];
      // Japanese has no spaces: a change between hiragana and katakana is the nearest word break.
      text += ` ${romaji(run)} `;
      continue;
    }
    const spelled = spell(char);
    if (spelled !== null) {
      text += spelled;
      continue;
    }
    text += ' ';
    if (LETTER.test(char)) {
      const script = SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'text';
      if (!untold.includes(script)) untold.push(script);
    }
  }
  return { text, untold };
}

/** One character in ASCII, or null when it has no spelling (punctuation and symbols become a space). */
function spell(char: string): string | null {
  if (char < '\x80') return char;
  const table = LATIN[char] ?? caseLike(char, GREEK) ?? caseLike(char, CYRILLIC) ?? hangul(char);
  if (table !== undefined) return table;
  const decomposed = [...char.normalize('NFKD')].filter((part) => !MARK.test(part));
  const parts = decomposed.map((part) =>
    part < '\x80' ? part : (LATIN[part] ?? caseLike(part, GREEK) ?? caseLike(part, CYRILLIC)),
  );
  if (parts.length > 0 && parts.every((part) => part !== undefined)) return parts.join('');
  return LETTER.test(char) ? null : ' ';
}

/** A lowercase table applied to both cases: `Ж` → `Zh`. */
function caseLike(char: string, table: Record<string, string>): string | undefined {
  const lower = char.toLowerCase();
  const spelled = table[lower];
  if (spelled === undefined || lower === char) return spelled;
  return spelled.charAt(0).toUpperCase() + spelled.slice(1);
}

function hangul(char: string): string | undefined {
  const index = char.charCodeAt(0) - 0xac00;
  if (index < 0 || index >= 11172) return undefined;
  const lead = HANGUL_LEAD[Math.floor(index / 588)] ?? '';
  const vowel = HANGUL_VOWEL[Math.floor((index % 588) / 28)] ?? '';
  const tail = HANGUL_TAIL[index % 28] ?? '';
  return lead + vowel + tail;
}
