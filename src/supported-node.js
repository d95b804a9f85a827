// The Node versions the gateway runs on, checked before anything else loads. Plain JavaScript
// without imports, so it runs (and refuses) on any Node, the end-of-life Node 20 of many hosts
// included: a production install leaves out the project's own Node 24 (a dev dependency), and
// `npm start` then runs on whatever Node comes first on PATH. The floor is the dependencies' own
// (@graphql-tools/schema declares 22.18; got 16 and @apollo/subgraph 22); package.json's `engines` and the
// bundle's target say the same (a test keeps them equal). The project is built and tested on 24.

/** The oldest Node the gateway runs on. */
export const NODE_FLOOR = '22.18.0';

/** One line saying why this Node cannot run the gateway, or undefined when it can. */
export function unsupportedNode(version = process.versions.node, execPath = process.execPath) {
  const [major, minor, patch] = version.split('.').map(Number);
  const [floorMajor, floorMinor, floorPatch] = NODE_FLOOR.split('.').map(Number);
  const supported = major !== floorMajor ? major > floorMajor : minor !== floorMinor ? minor > floorMinor : patch >= floorPatch;
  if (supported) return undefined;
  return `This gateway needs Node ${NODE_FLOOR} or newer (package.json "engines"); ${execPath} is Node ${version}: put a newer Node first on PATH (24, which it is built and tested on)`;
}
