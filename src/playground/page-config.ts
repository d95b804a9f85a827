/** One pre-filled editor tab of the playground: an operation with its variables and headers (JSON text). */
export interface PlaygroundTab {
  query: string;
  variables: string;
  headers: string;
}

/**
 * What the server hands the page. It travels inside the HTML as JSON, so the
 * bundle stays the same for every deployment and needs no build-time settings.
 */
export interface PlaygroundPageConfig {
  /** Path or URL of the GraphQL endpoint, resolved against the page's address. */
  endpoint: string;
  /** Opened on first visit, before the user has tabs of their own in local storage. */
  tabs: PlaygroundTab[];
  /** Headers of a tab the user opens. */
  defaultHeaders: string;
  /**
   * Keep header edits in local storage. Only with a demo token: a real token
   * typed into the editor must not outlive the browser tab.
   */
  persistHeaders: boolean;
  /** Where the bundle's files are served, ending with a slash. */
  assetsPath: string;
}
