import { describe, expect, it } from '@jest/globals';

describe('runtime', () => {
  it('runs on the Node LTS the project installs, not the machine Node', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(24);
  });
});
