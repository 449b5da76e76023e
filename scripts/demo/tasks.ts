/**
 * The widget-bugs ledger: 24 hand-written tasks. Besides the ledger facts,
 * each task carries what the simulation needs: its hardness (0-100, against
 * which a subject's skill is compared) and the text of a correct and of a
 * plausible-but-wrong patch (or answer, for question-answer tasks).
 */

/** A repository-repair task's fix, as one hunk. */
export interface RepairSpec {
  kind: 'repair';
  repo: string;
  file: string;
  /** First line of the hunk, in the old file. */
  line: number;
  /** The unchanged line opening the hunk (a `def`). */
  context: string;
  old: readonly string[];
  fix: readonly string[];
  wrong: readonly string[];
  test: string;
  assertion: string;
}

/** A question-answer task: no repository facts, an answer instead of a patch. */
export interface QuestionSpec {
  kind: 'question';
  question: string;
  answer: string;
  wrongAnswer: string;
}

/** One task of the ledger, with its simulation parameters. */
export type TaskSpec = {
  id: string;
  title: string;
  license: string;
  difficulty: 'A' | 'B' | 'C';
  /** 0 (trivial) to 100 (out of reach); a subject solves it reliably when its skill is 4 or more above. */
  hardness: number;
  holdout: boolean;
  cluster: string;
  createdAt: string;
} & (RepairSpec | QuestionSpec);

const QUEUE = 'https://example.com/widgetco/widget-queue.git';
const CLI = 'https://example.com/widgetco/widget-cli.git';
const CACHE = 'https://example.com/widgetco/widget-cache.git';
const SCHED = 'https://example.com/widgetco/widget-sched.git';
const HTTP = 'https://example.com/widgetco/widget-http.git';
const CONFIG = 'https://example.com/widgetco/widget-config.git';
const EXPORT = 'https://example.com/widgetco/widget-export.git';
const EXPORT_LTS = 'https://example.com/forks/widget-export-lts.git';
const GIZMO = 'https://example.com/acorn/gizmo-report.git';
const DB = 'https://example.com/widgetco/widget-db.git';
const TEXT = 'https://example.com/widgetco/widget-text.git';

/** The embedded-newline CSV bug, shared by three near-duplicate tasks (one cluster). */
const CSV_QUOTING = {
  context: 'def _quote(value):',
  old: ['    if "," in value:'],
  fix: ['    if any(ch in value for ch in (",", \'"\', "\\n", "\\r")):'],
  wrong: ['    if "," in value or value.endswith("\\n"):'],
  assertion: 'assert rows[1] == \'"line one\\nline two",3\'',
} as const;

/** The tasks, in ledger order. */
export const TASKS: readonly TaskSpec[] = [
  {
    id: 'widget-0001', title: 'Queue.drain() leaves items behind', license: 'MIT', difficulty: 'A', hardness: 12,
    holdout: true, cluster: 'queue-drain', createdAt: '2026-07-20T09:12:00Z',
    kind: 'repair', repo: QUEUE, file: 'widget_queue/queue.py', line: 41, context: '    def drain(self):',
    old: ['        return self._items'],
    fix: ['        items, self._items = self._items, []', '        return items'],
    wrong: ['        return list(self._items)'],
    test: 'tests/test_queue.py::test_drain_empties_queue', assertion: 'assert len(queue) == 0',
  },
  {
    id: 'widget-0002', title: 'Queue.peek() pops the head', license: 'MIT', difficulty: 'A', hardness: 20,
    holdout: true, cluster: 'queue-peek', createdAt: '2026-07-20T09:40:00Z',
    kind: 'repair', repo: QUEUE, file: 'widget_queue/queue.py', line: 52, context: '    def peek(self):',
    old: ['        return self._items.pop(0)'],
    fix: ['        return self._items[0]'],
    wrong: ['        return self._items.pop()'],
    test: 'tests/test_queue.py::test_peek_does_not_pop', assertion: 'assert len(q) == 3',
  },
  {
    id: 'widget-0003', title: '--version prints a prefix', license: 'Apache-2.0', difficulty: 'A', hardness: 15,
    holdout: false, cluster: 'cli-version', createdAt: '2026-07-22T14:05:00Z',
    kind: 'repair', repo: CLI, file: 'widget_cli/main.py', line: 18, context: 'def version():',
    old: ['    click.echo(f"widget {__version__}")'],
    fix: ['    click.echo(__version__)'],
    wrong: ['    click.echo(f"v{__version__}")'],
    test: 'tests/test_cli.py::test_version_flag', assertion: 'assert result.output.strip() == __version__',
  },
  {
    id: 'widget-0004', title: 'LRU cache evicts the most recent entry', license: 'BSD-3-Clause', difficulty: 'B', hardness: 38,
    holdout: true, cluster: 'lru-evict', createdAt: '2026-07-24T10:30:00Z',
    kind: 'repair', repo: CACHE, file: 'widget_cache/lru.py', line: 27, context: '    def get(self, key):',
    old: ['        return self._data[key]'],
    fix: ['        self._data.move_to_end(key)', '        return self._data[key]'],
    wrong: ['        value = self._data.pop(key)', '        return value'],
    test: 'tests/test_lru.py::test_evicts_least_recently_used', assertion: "assert 'a' not in cache",
  },
  {
    id: 'widget-0005', title: 'TTL entries live one tick too long', license: 'BSD-3-Clause', difficulty: 'B', hardness: 33,
    holdout: true, cluster: 'cache-ttl', createdAt: '2026-07-24T11:15:00Z',
    kind: 'repair', repo: CACHE, file: 'widget_cache/ttl.py', line: 33, context: '    def get(self, key):',
    old: ['        if self._expiry[key] < self._clock():'],
    fix: ['        if self._expiry[key] <= self._clock():'],
    wrong: ['        if self._expiry[key] < self._clock() - 1:'],
    test: 'tests/test_ttl.py::test_entry_expires_after_ttl', assertion: "assert cache.get('k') is None",
  },
  {
    id: 'widget-0006', title: 'Cron schedule lands inside the DST gap', license: 'Apache-2.0', difficulty: 'C', hardness: 88,
    holdout: true, cluster: 'cron-dst', createdAt: '2026-07-28T08:50:00Z',
    kind: 'repair', repo: SCHED, file: 'widget_sched/cron.py', line: 112, context: 'def next_run(expr, after):',
    old: ['    candidate = after.replace(tzinfo=None) + step'],
    fix: ['    candidate = tz.normalize(after + step)', '    if not tz.exists(candidate):', '        candidate = tz.shift_forward(candidate)'],
    wrong: ['    candidate = (after + step).astimezone(tz)'],
    test: 'tests/test_cron.py::test_next_run_skips_dst_gap',
    assertion: "assert next_run('30 2 * * *', t) == datetime(2026, 3, 29, 3, 0, tzinfo=BERLIN)",
  },
  {
    id: 'widget-0007', title: 'Retry backoff is not capped', license: 'Apache-2.0', difficulty: 'B', hardness: 49,
    holdout: true, cluster: 'retry-backoff', createdAt: '2026-08-03T13:20:00Z',
    kind: 'repair', repo: HTTP, file: 'widget_http/retry.py', line: 64, context: '    def delays(self):',
    old: ['        return [self.base * 2 ** i for i in range(self.tries)]'],
    fix: ['        return [min(self.base * 2 ** i, self.cap) for i in range(self.tries)]'],
    wrong: ['        return [self.base * 2 ** min(i, 3) for i in range(self.tries)]'],
    test: 'tests/test_retry.py::test_backoff_is_capped', assertion: 'assert delays == [0.5, 1.0, 2.0, 4.0, 4.0]',
  },
  {
    id: 'widget-0008', title: 'Config merge concatenates lists', license: 'MIT', difficulty: 'B', hardness: 45,
    holdout: false, cluster: 'config-merge', createdAt: '2026-08-03T15:02:00Z',
    kind: 'repair', repo: CONFIG, file: 'widget_config/merge.py', line: 22, context: 'def merge(a, b):',
    old: ['            out[k] = out.get(k, []) + v'],
    fix: ['            out[k] = list(v)'],
    wrong: ['            out[k] = sorted(set(out.get(k, []) + v))'],
    test: 'tests/test_merge.py::test_nested_lists_are_replaced', assertion: "assert merged['plugins'] == ['b']",
  },
  {
    id: 'widget-0009', title: 'CSV export breaks rows on embedded newlines', license: 'MIT', difficulty: 'B', hardness: 60,
    holdout: true, cluster: 'csv-embedded-newline', createdAt: '2026-08-10T09:00:00Z',
    kind: 'repair', repo: EXPORT, file: 'widget_export/csv_writer.py', line: 15, ...CSV_QUOTING,
    test: 'tests/test_export.py::test_quotes_embedded_newline',
  },
  {
    id: 'widget-0010', title: 'CSV export breaks rows on embedded newlines (LTS fork)', license: 'MIT', difficulty: 'B', hardness: 61,
    holdout: true, cluster: 'csv-embedded-newline', createdAt: '2026-08-10T09:05:00Z',
    kind: 'repair', repo: EXPORT_LTS, file: 'widget_export/csv_writer.py', line: 15, ...CSV_QUOTING,
    test: 'tests/test_export.py::test_quotes_embedded_newline',
  },
  {
    id: 'widget-0011', title: 'Report export breaks rows on embedded newlines', license: 'BSD-2-Clause', difficulty: 'B', hardness: 59,
    holdout: true, cluster: 'csv-embedded-newline', createdAt: '2026-08-10T09:30:00Z',
    kind: 'repair', repo: GIZMO, file: 'gizmo_report/export.py', line: 48, ...CSV_QUOTING,
    test: 'tests/test_report_export.py::test_quotes_embedded_newline',
  },
  {
    id: 'widget-0012', title: 'Connection pool leaks on exceptions', license: 'MPL-2.0', difficulty: 'C', hardness: 64,
    holdout: true, cluster: 'pool-leak', createdAt: '2026-08-12T16:45:00Z',
    kind: 'repair', repo: DB, file: 'widget_db/pool.py', line: 88, context: '    def connection(self):',
    old: ['        conn = self._acquire()', '        yield conn', '        self._release(conn)'],
    fix: ['        conn = self._acquire()', '        try:', '            yield conn', '        finally:', '            self._release(conn)'],
    wrong: ['        conn = self._acquire()', '        yield conn', '        if not conn.closed:', '            self._release(conn)'],
    test: 'tests/test_pool.py::test_connection_returned_on_error', assertion: 'assert pool.available == pool.size',
  },
  {
    id: 'widget-0013', title: 'Datetimes serialise without a UTC designator', license: 'Apache-2.0', difficulty: 'B', hardness: 44,
    holdout: true, cluster: 'json-datetime', createdAt: '2026-08-14T10:10:00Z',
    kind: 'repair', repo: HTTP, file: 'widget_http/encoding.py', line: 19, context: '    def default(self, obj):',
    old: ['            return obj.isoformat()'],
    fix: ["            return obj.astimezone(timezone.utc).isoformat().replace('+00:00', 'Z')"],
    wrong: ["            return obj.strftime('%Y-%m-%dT%H:%M:%SZ')"],
    test: 'tests/test_encoding.py::test_datetime_is_iso8601_utc', assertion: "assert body['at'] == '2026-09-01T10:00:00Z'",
  },
  {
    id: 'widget-0014', title: 'Plugin discovery uses the removed entry_points() dict API', license: 'Apache-2.0', difficulty: 'C', hardness: 70,
    holdout: false, cluster: 'plugin-discovery', createdAt: '2026-08-17T12:00:00Z',
    kind: 'repair', repo: CLI, file: 'widget_cli/plugins.py', line: 9, context: 'def discover():',
    old: ["    eps = entry_points()['widget.plugins']"],
    fix: ["    eps = entry_points(group='widget.plugins')"],
    wrong: ["    eps = entry_points().get('widget.plugins', [])"],
    test: 'tests/test_plugins.py::test_entry_points_group', assertion: "assert [p.name for p in discover()] == ['csv', 'json']",
  },
  {
    id: 'widget-0015', title: 'URL normalisation keeps the default port', license: 'Apache-2.0', difficulty: 'A', hardness: 25,
    holdout: true, cluster: 'url-normalize', createdAt: '2026-08-19T09:25:00Z',
    kind: 'repair', repo: HTTP, file: 'widget_http/urls.py', line: 30, context: 'def normalize(url):',
    old: ['    netloc = parts.netloc.lower()'],
    fix: ["    netloc = parts.hostname or ''", '    if parts.port and parts.port != DEFAULT_PORTS.get(parts.scheme):', "        netloc += f':{parts.port}'"],
    wrong: ["    netloc = parts.netloc.lower().replace(':443', '')"],
    test: 'tests/test_urls.py::test_default_port_is_dropped',
    assertion: "assert normalize('https://example.com:443/a') == 'https://example.com/a'",
  },
  {
    id: 'widget-0016', title: 'Quota exhaustion status code', license: 'CC-BY-4.0', difficulty: 'A', hardness: 30,
    holdout: true, cluster: 'qa-quota-status', createdAt: '2026-08-20T11:00:00Z',
    kind: 'question', question: "Which HTTP status code does the widget API return when a project's request quota is exhausted?",
    answer: '429 Too Many Requests', wrongAnswer: '403 Forbidden',
  },
  {
    id: 'widget-0017', title: 'Concurrent migrations apply twice', license: 'MPL-2.0', difficulty: 'C', hardness: 66,
    holdout: true, cluster: 'migration-lock', createdAt: '2026-08-24T15:30:00Z',
    kind: 'repair', repo: DB, file: 'widget_db/migrate.py', line: 57, context: '    def apply_all(self):',
    old: ['        for m in self.pending():'],
    fix: ['        with self._advisory_lock():', '            for m in self.pending():'],
    wrong: ['        for m in sorted(set(self.pending())):'],
    test: 'tests/test_migrate.py::test_concurrent_migrations_serialize', assertion: "assert applied == ['0001_init', '0002_index']",
  },
  {
    id: 'widget-0018', title: 'Display width ignores East Asian wide characters', license: 'ISC', difficulty: 'C', hardness: 80,
    holdout: true, cluster: 'unicode-width', createdAt: '2026-08-26T10:40:00Z',
    kind: 'repair', repo: TEXT, file: 'widget_text/width.py', line: 12, context: 'def display_width(s):',
    old: ['    return len(s)'],
    fix: ["    return sum(2 if east_asian_width(ch) in 'WF' else 1 for ch in s)"],
    wrong: ["    return len(s.encode('utf-8')) // 2"],
    test: 'tests/test_width.py::test_east_asian_wide_chars', assertion: "assert display_width('表') == 2",
  },
  {
    id: 'widget-0019', title: 'Release that added `widget ls --json`', license: 'CC-BY-4.0', difficulty: 'B', hardness: 40,
    holdout: false, cluster: 'qa-changelog', createdAt: '2026-08-28T09:15:00Z',
    kind: 'question', question: 'In which widget-cli release was the --json flag of `widget ls` added?',
    answer: '2.4.0', wrongAnswer: '2.3.0',
  },
  {
    id: 'widget-0020', title: 'Retry-After given as an HTTP date is rejected', license: 'Apache-2.0', difficulty: 'B', hardness: 58,
    holdout: true, cluster: 'retry-after-date', createdAt: '2026-09-01T13:00:00Z',
    kind: 'repair', repo: HTTP, file: 'widget_http/client.py', line: 140, context: '    def wait_seconds(self, resp):',
    old: ["        return int(resp.headers['Retry-After'])"],
    fix: [
      "        value = resp.headers['Retry-After']",
      '        if value.isdigit():',
      '            return int(value)',
      '        return max(0, int((parsedate_to_datetime(value) - self._now()).total_seconds()))',
    ],
    wrong: ["        return int(float(resp.headers.get('Retry-After', 0)))"],
    test: 'tests/test_client.py::test_retry_after_http_date', assertion: 'assert client.wait_seconds(resp) == 120',
  },
  {
    id: 'widget-0021', title: 'Log file never rotates', license: 'Apache-2.0', difficulty: 'A', hardness: 10,
    holdout: true, cluster: 'log-rotation', createdAt: '2026-09-02T08:30:00Z',
    kind: 'repair', repo: CLI, file: 'widget_cli/logging.py', line: 25, context: 'def handler(path):',
    old: ['    return FileHandler(path)'],
    fix: ['    return RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=1)'],
    wrong: ['    return RotatingFileHandler(path, maxBytes=MAX_BYTES)'],
    test: 'tests/test_logging.py::test_rotates_at_max_bytes', assertion: "assert len(list(tmp_path.glob('widget.log*'))) == 2",
  },
  {
    id: 'widget-0022', title: 'Cancelled worker keeps its lease', license: 'MIT', difficulty: 'C', hardness: 92,
    holdout: true, cluster: 'async-cancel', createdAt: '2026-09-04T17:10:00Z',
    kind: 'repair', repo: QUEUE, file: 'widget_queue/worker.py', line: 73, context: '    async def run(self):',
    old: ['            await self.handle(job)'],
    fix: ['            try:', '                await self.handle(job)', '            except asyncio.CancelledError:', '                await self.broker.release(job.lease)', '                raise'],
    wrong: ['            await asyncio.shield(self.handle(job))'],
    test: 'tests/test_worker.py::test_cancel_releases_lease', assertion: 'assert broker.leases == {}',
  },
  {
    id: 'widget-0023', title: 'Time parser drops UTC offsets', license: 'Apache-2.0', difficulty: 'B', hardness: 36,
    holdout: false, cluster: 'tz-parse', createdAt: '2026-09-07T10:00:00Z',
    kind: 'repair', repo: SCHED, file: 'widget_sched/parse.py', line: 8, context: 'def parse(text):',
    old: ["    return datetime.strptime(text, '%H:%M')"],
    fix: ["    return datetime.fromisoformat(f'1970-01-01T{text}')"],
    wrong: ["    return datetime.strptime(text[:5], '%H:%M')"],
    test: 'tests/test_parse.py::test_offset_suffix', assertion: "assert parse('10:00+02:00').utcoffset() == timedelta(hours=2)",
  },
  {
    id: 'widget-0024', title: 'First release warning on raw sends', license: 'CC-BY-4.0', difficulty: 'B', hardness: 50,
    holdout: true, cluster: 'qa-deprecation', createdAt: '2026-09-09T16:20:00Z',
    kind: 'question', question: 'Which widget-http version first emits a DeprecationWarning for `Client.send(raw=True)`?',
    answer: '3.1.0', wrongAnswer: '3.0.0',
  },
];

/** Task ids of the headline set (FORMAT.md 7.3): the first holdout task of each cluster, in ledger order. */
export function headlineTaskIds(tasks: readonly { task_id: string; holdout: boolean; cluster_id: string }[]): Set<string> {
  const clusters = new Set<string>();
  const ids = new Set<string>();
  for (const task of tasks) {
    if (!task.holdout || clusters.has(task.cluster_id)) continue;
    clusters.add(task.cluster_id);
    ids.add(task.task_id);
  }
  return ids;
}
