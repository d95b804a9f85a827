import { Writable } from 'node:stream';

/** Every line pino writes, kept as raw text (to search for secrets) and parsed. */
export class LogCapture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.text += chunk.toString();
    done();
  }
  lines(): Record<string, unknown>[] {
    return this.text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  }
  reset() {
    this.text = '';
  }
}
