// A deterministic JSON document of about `bytes` characters, shaped like structured model output.
export function makeDocument(bytes: number): string {
  const items: unknown[] = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const item = {
      id: i,
      title: `Item number ${i} — "quoted" and escaped \\ text`,
      score: (i * 37) % 1000 / 7,
      active: i % 3 === 0,
      tags: ['alpha', 'beta', `t${i % 17}`],
      owner: { name: `User ${i % 101}`, email: `user${i % 101}@example.com`, note: null },
    };
    const text = JSON.stringify(item);
    size += text.length + 1;
    items.push(item);
  }
  return JSON.stringify(items);
}
