/**
 * Japanese kana in Hepburn romaji, for ids: `タスク` → `tasuku`, `きょう` → `kyou`, `ちょっと` →
 * `chotto`. The long-vowel mark is left out (`サーバー` → `saba`), as most romanised slugs do.
 */
const HIRAGANA: Record<string, string> = {
  あ: 'a',
  い: 'i',
  う: 'u',
  え: 'e',
  お: 'o',
  か: 'ka',
  き: 'ki',
  く: 'ku',
  け: 'ke',
  こ: 'ko',
  が: 'ga',
  ぎ: 'gi',
  ぐ: 'gu',
  げ: 'ge',
  ご: 'go',
  さ: 'sa',
  し: 'shi',
  す: 'su',
  せ: 'se',
  そ: 'so',
  ざ: 'za',
  じ: 'ji',
  ず: 'zu',
  ぜ: 'ze',
  ぞ: 'zo',
  た: 'ta',
  ち: 'chi',
  つ: 'tsu',
  て: 'te',
  と: 'to',
  だ: 'da',
  ぢ: 'ji',
  づ: 'zu',
  で: 'de',
  ど: 'do',
  な: 'na',
  に: 'ni',
  ぬ: 'nu',
  ね: 'ne',
  の: 'no',
  は: 'ha',
  ひ: 'hi',
  ふ: 'fu',
  へ: 'he',
  ほ: 'ho',
  ば: 'ba',
  び: 'bi',
  ぶ: 'bu',
  べ: 'be',
  ぼ: 'bo',
  ぱ: 'pa',
  ぴ: 'pi',
  ぷ: 'pu',
  ぺ: 'pe',
  ぽ: 'po',
  ま: 'ma',
  み: 'mi',
  む: 'mu',
  め: 'me',
  も: 'mo',
  や: 'ya',
  ゆ: 'yu',
  よ: 'yo',
  ら: 'ra',
  り: 'ri',
  る: 'ru',
  れ: 're',
  ろ: 'ro',
  わ: 'wa',
  ゐ: 'i',
  ゑ: 'e',
  を: 'o',
  ん: 'n',
  ゔ: 'vu',
  ゕ: 'ka',
  ゖ: 'ke',
};
/** Small kana that fold into the syllable before them: き + ゃ → kya, フ + ァ → fa. */
const SMALL: Record<string, string> = {
  ゃ: 'ya',
  ゅ: 'yu',
  ょ: 'yo',
  ぁ: 'a',
  ぃ: 'i',
  ぅ: 'u',
  ぇ: 'e',
  ぉ: 'o',
  ゎ: 'wa',
};
const SOKUON = 'っ';
const LONG_VOWEL = 'ー';

/** Katakana as the hiragana of the same sound (the blocks are 0x60 apart). */
function asHiragana(char: string): string {
  const code = char.charCodeAt(0);
  return code >= 0x30a1 && code <= 0x30f6 ? String.fromCharCode(code - 0x60) : char;
}

/** Hiragana or katakana (the long-vowel mark goes with katakana), or null for anything else. */
export function kanaKind(char: string): 'hiragana' | 'katakana' | null {
  if (!isKana(char)) return null;
  return char === LONG_VOWEL || asHiragana(char) !== char ? 'katakana' : 'hiragana';
}

function isKana(char: string): boolean {
  const hira = asHiragana(char);
  return hira in HIRAGANA || hira in SMALL || hira === SOKUON || char === LONG_VOWEL;
}

/** A run of kana (every character passes isKana) in romaji. */
export function romaji(kana: string): string {
  let out = '';
  let doubleNext = false;
  for (const char of kana) {
    const hira = asHiragana(char);
    if (char === LONG_VOWEL) continue;
    if (hira === SOKUON) {
      doubleNext = true;
      continue;
    }
    const small = SMALL[hira];
    if (small !== undefined && out !== '') {
      out = foldSmall(out, small);
      continue;
    }
    let syllable = HIRAGANA[hira] ?? small ?? '';
    if (doubleNext && syllable !== '')
      syllable = syllable.startsWith('ch') ? `t${syllable}` : `${syllable.charAt(0)}${syllable}`;
    doubleNext = false;
    out += syllable;
  }
  return out;
}

/** き + ゃ → kya, し + ゃ → sha, フ + ァ → fa, テ + ィ → ti. */
function foldSmall(before: string, small: string): string {
  if (small.startsWith('y') && before.endsWith('i')) {
    const stem = before.slice(0, -1);
    return /(sh|ch|j)$/.test(stem) ? stem + small.slice(1) : stem + small;
  }
  return /[aeiou]$/.test(before) ? before.slice(0, -1) + small : before + small;
}
