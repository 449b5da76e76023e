/**
 * The module through which pages, components and layouts get the site
 * model: served by render.ts (siteModelPlugin) for one render, as data.
 */
declare module 'virtual:ledgerboard/site-model' {
  const model: import('./model-types.ts').SiteModel;
  export default model;
}

/** The rows of each task page, as HTML already (attempt-rows.ts): served by render.ts (pageDataPlugin) for one render. */
declare module 'virtual:ledgerboard/task-details' {
  export function taskDetail(n: number): import('./attempt-rows.ts').TaskPageData;
}

/** The transcript of each transcript page: served by render.ts (pageDataPlugin) for one render. */
declare module 'virtual:ledgerboard/transcripts' {
  export function transcript(n: number): import('../../import/transcript.ts').Transcript;
}

/** Whether a page with getStaticPaths is rendered this time (an incremental build renders only the pages whose key changed): served by render.ts (renderFilterPlugin). */
declare module 'virtual:ledgerboard/render-pages' {
  export function renders(path: string): boolean;
}
