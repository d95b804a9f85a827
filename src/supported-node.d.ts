// Types of supported-node.js, which stays plain JavaScript so that any Node can run it.

/** The oldest Node the gateway runs on. */
export declare const NODE_FLOOR: string;

/** One line saying why this Node cannot run the gateway, or undefined when it can. */
export declare function unsupportedNode(version?: string, execPath?: string): string | undefined;
