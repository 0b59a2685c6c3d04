import { describe, expect, test } from 'vitest';
import { SHORT_ID_MAX, idFromFileName, legacyIdFromFileName } from '../../src/task/id.js';
import { TASK_ID_PATTERN } from '../../src/task/vocabulary.js';

describe('idFromFileName', () => {
  test.each([
    ['Add dark mode.md', 'Add-dark-mode'],
    ['Café crème.md', 'Cafe-creme'],
    ['Über straße.md', 'Uber-strasse'],
    ['Søren Ødegård.md', 'Soren-Odegard'],
    ['Łódź.md', 'Lodz'],
    ['Þórður.md', 'Thordur'],
    ['Œuvre æble.md', 'OEuvre-aeble'],
    ['Đà Nẵng.md', 'Da-Nang'],
    ['ｆｕｌｌ width.md', 'full-width'],
    ['Привет мир.md', 'Privet-mir'],
    ['Жёлтый.md', 'Zheltyi'],
    ['Ελληνικά.md', 'Ellinika'],
    ['한국어 작업.md', 'hangukeo-jakeop'],
    ['Café!.md', 'Cafe'],
    ['タスク.md', 'tasuku'],
    ['きょうのテスト.md', 'kyouno-tesuto'],
    ['ちょっと.md', 'chotto'],
    ['がっこう.md', 'gakkou'],
    ['しゃしん.md', 'shashin'],
    ['ファイル.md', 'fairu'],
    ['サーバー.md', 'saba'],
    // A name from macOS arrives decomposed (NFD): the same id as the composed spelling.
    ['Cafe\u0301 cre\u0300me.md', 'Cafe-creme'],
  ])('%s → %s', (name, id) => {
    expect(idFromFileName(name)).toBe(id);
  });

  test.each([
    // ASCII names keep the id they always had, trailing and doubled dashes included: sessions are named by it.
    ['Fix bug!.md'],
    ['a - b.md'],
    ['---.md'],
    ['v1.2 release.md'],
  ])('an ASCII name keeps its earlier id: %s', (name) => {
    expect(idFromFileName(name)).toBe(legacyIdFromFileName(name));
  });

  test.each([
    // The kana are spelled; the Han letters are named, and the hash tells such names apart.
    ['日本語のタスク.md', /^no-tasuku-han-[0-9a-z]{6}$/],
    ['任务.md', /^task-han-[0-9a-z]{6}$/],
    ['مهمة جديدة.md', /^task-arabic-[0-9a-z]{6}$/],
    ['नमस्ते.md', /^task-devanagari-[0-9a-z]{6}$/],
    ['🚀.md', /^task-[0-9a-z]{6}$/],
    ['Fix 日本語 bug.md', /^Fix-bug-han-[0-9a-z]{6}$/],
  ])('a name with letters that have no Latin form: %s → %s', (name, shape) => {
    const id = idFromFileName(name);
    expect(id).toMatch(shape);
    expect(id).not.toMatch(/e697a5/);
    if (!/[A-Za-z]/.test(name)) expect(id.length).toBeLessThanOrEqual(SHORT_ID_MAX);
  });

  test('the short id is stable and tells names apart', () => {
    expect(idFromFileName('日本語のタスク.md')).toBe(idFromFileName('日本語のタスク.md'));
    expect(idFromFileName('日本語のタスク.md')).not.toBe(idFromFileName('日本語のテスト.md'));
    expect(idFromFileName('日本語のタスク.md')).toBe(idFromFileName('日本語のタスク.md'.normalize('NFD')));
  });

  test('every id made is a valid id, however long or odd the name', () => {
    const names = ['é'.repeat(300), `${'a'.repeat(200)}é`, `${'x'.repeat(100)} 日本`, '日'.repeat(500), ' ', 'ß'];
    for (const name of names) expect(idFromFileName(`${name}.md`)).toMatch(TASK_ID_PATTERN);
    expect(idFromFileName(`${'日'.repeat(500)}.md`).length).toBeLessThanOrEqual(SHORT_ID_MAX);
  });
});

describe('legacyIdFromFileName', () => {
  test.each([
    ['Café crème.md', 'Caf-cr-me'],
    ['Über straße.md', 'ber-stra-e'],
    ['日本語.md', 'task-e697a5e69cace8aa9e'],
  ])('%s → %s (the rule before transliteration)', (name, id) => {
    expect(legacyIdFromFileName(name)).toBe(id);
  });
});
