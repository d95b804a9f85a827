export declare const STAMP_FILE: string;
export declare function sourcesHash(root: string): string | undefined;
export declare function readStamp(outdir: string): string | undefined;
