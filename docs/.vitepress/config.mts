// The docs site (VitePress): `npm run docs:build` builds it into docs/.vitepress/dist and fails on a
// dead link; `npm test` runs that build. The pages are the plain markdown files of
// docs/, readable on GitHub as they are; this file only orders them.
import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'obsync',
  description: 'GitOps for observability configuration: dashboards, alerts and pipe settings in Git, reconciled.',
  // Pages link to the repository's own files (config-examples/, deploy/, src/): not pages of the site.
  ignoreDeadLinks: [/^(\.\/)?\.\.\/(config-examples|deploy|src|bench|test)\//, /^\.\/schema\//],
  themeConfig: {
    search: { provider: 'local' },
    sidebar: [
      {
        text: 'Start',
        items: [
          { text: 'Getting started', link: '/getting-started' },
          { text: 'Install', link: '/install' },
          { text: 'Concepts', link: '/concepts' },
          { text: 'The trust model', link: '/trust' },
        ],
      },
      {
        text: 'How-to guides',
        items: [
          { text: 'Configuration and targets', link: '/configuration' },
          { text: 'Deploy: CI, container, Kubernetes', link: '/deployment' },
          { text: 'Bring existing objects under Git', link: '/adoption' },
          { text: 'Renames and moves', link: '/renames' },
          { text: 'Export and import', link: '/export' },
          { text: 'Edits from the UI: pull', link: '/pull' },
          { text: 'Write-back proposals', link: '/write-back' },
          { text: 'Sharing fields with the UI', link: '/ignore' },
          { text: 'Backtests and impact', link: '/backtests' },
          { text: 'Alert tests', link: '/alert-tests' },
          { text: 'Reading data: query and search', link: '/query-and-search' },
          { text: 'Policy before merge', link: '/policy' },
          { text: 'Plan previews', link: '/previews' },
          { text: 'Access as code', link: '/access' },
          { text: 'Pipe SSH keys and workload identity', link: '/pipe-ssh-keys' },
          { text: 'Notifications', link: '/notifications' },
          { text: 'Secrets', link: '/secrets' },
        ],
      },
      {
        text: 'Operations',
        items: [
          { text: 'The daemon', link: '/daemon' },
          { text: 'What the daemon tells', link: '/daemon-visibility' },
          { text: 'State backends and replicas', link: '/state' },
          { text: 'PostgreSQL state rows', link: '/state-rows' },
          { text: 'Benchmarks and sizing', link: '/benchmarks' },
          { text: 'obsync\u2019s own telemetry (OTLP)', link: '/telemetry' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Commands', link: '/reference/cli' },
          { text: 'Manifests and obsync.yaml', link: '/reference/README' },
          { text: 'Metrics', link: '/reference/metrics' },
          { text: 'Events', link: '/reference/events' },
          { text: 'Error codes', link: '/errors' },
          { text: 'Environment variables', link: '/environment' },
          { text: 'Plan output', link: '/plan-output' },
          { text: 'Output formats', link: '/output-formats' },
          { text: 'Your project\u2019s files', link: '/files' },
          { text: 'Ownership', link: '/ownership' },
          { text: 'Editor schema', link: '/editor-schema' },
          { text: 'Fidelity', link: '/fidelity' },
          { text: 'Fidelity: newer vendor API', link: '/fidelity-newer-vendors' },
        ],
      },
      {
        text: 'Contributing',
        items: [
          { text: 'Development', link: '/development' },
          { text: 'Dependencies', link: '/dependencies' },
        ],
      },
    ],
  },
});
