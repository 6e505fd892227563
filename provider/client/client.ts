/**
 * SecOpsClient: one method per API operation. Arguments are checked before any request
 * (SECOPS_INVALID_INPUT naming the field), answers against the schemas (SECOPS_RESPONSE_INVALID).
 */
import { shared } from "./cancellation";
import type { Readable } from "node:stream";
import type { z } from "zod";
import { ErrorCodes, SecOpsInputError, SecOpsResponseError, isSecOpsError } from "./errors";
import { HttpTransport, type RequestSpec } from "./http";
import { toSettings, type SecOpsClientOptions } from "./options";
import { multipart, names, paging, routes } from "./routes";
import {
  type CsvExportOptions,
  type CsvExportToFileOptions,
  type Detection,
  type DirectoryUser,
  type DirectoryUserUpdate,
  type HvaRule,
  type HvaRuleCreate,
  type Identity,
  type IntegrationFilter,
  type SortDirection,
  type TimelineComment,
} from "./types";
import { csvExport, undici, validation as V } from "./lazy";

/** A file attached to a timeline comment. */
export interface CommentFile {
  filename: string;
  contentType: string;
  data: Uint8Array;
}

/** What to change on a timeline comment. `files`, when given, replaces every attachment. */
export interface TimelineCommentEdit {
  content?: string;
  files?: CommentFile[];
}

/** A typed client for the Security Operations Service API. */
export class SecOpsClient {
  // #private: util.inspect never reaches the pool or its queued requests' headers.
  readonly #http: HttpTransport;
  #identityCache: Promise<Identity> | undefined;

  constructor(options: SecOpsClientOptions) {
    this.#http = new HttpTransport(toSettings(options));
  }

  /** GET /v1/auth/me: the identity and role behind the API key. Refreshes the cached identity. */
  async getIdentity(): Promise<Identity> {
    const path = routes.authMe();
    const identity = await this.request({ method: "GET", path, idempotent: true }, V().identitySchema);
    this.#identityCache = Promise.resolve(identity);
    return identity;
  }

  /** The identity, looked up once per client and cached (a failed lookup is not cached). */
  identity(): Promise<Identity> {
    this.#identityCache ??= shared(() => this.getIdentity()).catch((err: unknown) => {
      this.#identityCache = undefined;
      throw err;
    });
    return this.#identityCache;
  }

  /** GET /v1/directory/{id} (assumed route): one directory user. */
  async getDirectoryUser(id: string): Promise<DirectoryUser> {
    const path = routes.directoryUser(V().parseInput(V().idSchema, id, "id"));
    return this.request({ method: "GET", path, idempotent: true }, V().directoryUserSchema);
  }

  /** GET /v1/directory (assumed route): the team's directory users. */
  async listDirectoryUsers(): Promise<DirectoryUser[]> {
    const path = routes.directoryUsers();
    return this.request({ method: "GET", path, idempotent: true }, V().directoryUserListSchema);
  }

  /** PATCH /v1/directory/{id}: sets any of the three flags; at least one must be given. */
  async updateDirectoryUser(id: string, update: DirectoryUserUpdate): Promise<DirectoryUser> {
    const path = routes.directoryUser(V().parseInput(V().idSchema, id, "id"));
    const json = V().parseInput(V().directoryUserUpdateSchema, update, "update");
    if (Object.keys(json).length === 0) {
      throw new SecOpsInputError(
        "update",
        "set at least one of needsChatOpsWelcome, chatOpsOnboardingUser, credentialsExposed",
      );
    }
    return this.request({ method: "PATCH", path, json, idempotent: true }, V().directoryUserSchema);
  }

  /**
   * POST /v1/integration/count: how many integrations match. `serviceProviderScope` is only for
   * service-provider callers; for any other caller it is rejected before anything is sent.
   */
  async countIntegrations(filter: IntegrationFilter = {}): Promise<number> {
    const f = V().parseInput(V().integrationFilterSchema, filter, "filter");
    if (f.serviceProviderScope !== undefined) {
      const me = await this.identity();
      if (me.serviceProvider !== true) {
        throw new SecOpsInputError(
          "filter.serviceProviderScope",
          `only service-provider callers may set it; team ${me.teamId} is not a service provider`,
        );
      }
    }
    const { sortDirection, serviceProviderScope, ...rest } = f;
    const json: Record<string, unknown> = { ...rest };
    if (sortDirection !== undefined) json[names.sortDirection] = sortDirection;
    if (serviceProviderScope !== undefined) json[names.serviceProviderScope] = serviceProviderScope;
    // A count changes nothing: safe to re-send after a failure.
    const spec: RequestSpec = { method: "POST", path: routes.integrationCount(), json, idempotent: true };
    return (await this.request(spec, V().integrationCountSchema)).totalCount;
  }

  /** PATCH /v1/timeline/comments/{id} (multipart): edits the text and optionally replaces attachments. */
  async editTimelineComment(id: string, edit: TimelineCommentEdit): Promise<TimelineComment> {
    const path = routes.timelineComment(V().parseInput(V().idSchema, id, "id"));
    const e = V().parseInput(V().commentEditSchema, edit, "edit");
    if (e.content === undefined && e.files === undefined)
      throw new SecOpsInputError("edit", "set content, files or both");
    const form = () => {
      const fd = new (undici().FormData)();
      if (e.content !== undefined) fd.append(multipart.content, e.content);
      if (e.files !== undefined) {
        fd.append(multipart.filesManifest, JSON.stringify(e.files.map((f) => f.filename)));
        for (const f of e.files)
          fd.append(multipart.filePart, new Blob([f.data], { type: f.contentType }), f.filename);
      }
      return fd;
    };
    return this.request({ method: "PATCH", path, form, idempotent: true }, V().timelineCommentSchema);
  }

  /** PUT /endpoint/hva/automation: creates a rule. Never re-sent once it may have arrived (SECOPS_AMBIGUOUS). */
  async createHvaRule(rule: HvaRuleCreate): Promise<HvaRule> {
    const json = V().parseInput(V().hvaRuleCreateSchema, rule, "rule");
    const path = routes.hvaRules();
    return this.request({ method: "PUT", path, json, idempotent: false }, V().hvaRuleSchema);
  }

  /** PATCH /endpoint/hva/automation/{id}: enables or disables a rule. */
  async setHvaRuleEnabled(id: string, enabled: boolean): Promise<HvaRule> {
    const path = routes.hvaRule(V().parseInput(V().idSchema, id, "id"));
    const json = { enabled: V().parseInput(V().booleanSchema, enabled, "enabled") };
    return this.request({ method: "PATCH", path, json, idempotent: true }, V().hvaRuleSchema);
  }

  /** GET /endpoint/hva/automation/{id} (assumed route): the rule, or undefined when it is gone. */
  async getHvaRule(id: string): Promise<HvaRule | undefined> {
    const path = routes.hvaRule(V().parseInput(V().idSchema, id, "id"));
    try {
      return await this.request({ method: "GET", path, idempotent: true }, V().hvaRuleSchema);
    } catch (err) {
      if (isSecOpsError(err, ErrorCodes.NOT_FOUND)) return undefined;
      throw err;
    }
  }

  /** GET /endpoint/hva/automation (assumed route): every rule of the caller's team. */
  async listHvaRules(): Promise<HvaRule[]> {
    const path = routes.hvaRules();
    return this.request({ method: "GET", path, idempotent: true }, V().hvaRuleListSchema);
  }

  /** DELETE /endpoint/hva/automation/{id} (assumed route). A missing rule fails with SECOPS_NOT_FOUND. */
  async deleteHvaRule(id: string): Promise<void> {
    const path = routes.hvaRule(V().parseInput(V().idSchema, id, "id"));
    await this.#http.json({ method: "DELETE", path, idempotent: true, ignoreBody: true }, () => undefined);
  }

  /**
   * GET /v1/cases/{id}/threat-indicators, every page. The spec hides whether pages count from 0 or 1,
   * so the first request sends no page number and page 1 either repeats it or follows it. Indicators
   * are de-duplicated by id; a server that stops making progress fails with SECOPS_INCOMPLETE.
   */
  async listCaseThreatIndicators(
    caseId: string,
    options: { sortDirection?: SortDirection } = {},
  ): Promise<{ data: Detection[]; totalCount: number }> {
    const path = routes.caseThreatIndicators(V().parseInput(V().idSchema, caseId, "caseId"));
    const { sortDirection } = V().parseInput(V().indicatorOptionsSchema, options, "options");
    const seen = new Set<string>();
    const data: Detection[] = [];
    for (let n = 0, page: number | undefined = undefined; n < paging.maxPages; n++) {
      const query = {
        [names.sortDirection]: sortDirection,
        [names.page]: page,
        [names.pageSize]: paging.pageSize,
      };
      const spec: RequestSpec = { method: "GET", path, query, idempotent: true };
      const result = await this.request(spec, V().threatIndicatorPageSchema);
      const fresh = result.data.filter((d) => !seen.has(d.id) && seen.add(d.id));
      for (const d of fresh) data.push(d);
      if (data.length >= result.totalCount) return { data, totalCount: result.totalCount };
      // Page 1 may repeat the first page (1-based numbering): only later pages must bring something new.
      if (fresh.length === 0 && page !== 1) {
        const at = page === undefined ? "its first page" : `page ${page}`;
        const got = `${data.length} of ${result.totalCount} indicators`;
        throw incomplete(
          path,
          `the server stopped making progress at ${at} with ${got}; refusing to return a partial list`,
        );
      }
      page = page === undefined ? 1 : page + 1;
    }
    throw incomplete(path, `more than ${paging.maxPages} pages`);
  }

  /**
   * POST /v1/cases/export/csv as a stream, never buffered; destroying it (even unread) frees its slot.
   * `deadlineMs` bounds the whole download; `timeoutMs` only the gaps between chunks.
   */
  async exportCasesCsv(options: CsvExportOptions = {}): Promise<Readable> {
    const { deadlineMs } = V().parseInput(V().csvExportOptionsSchema, options, "options");
    return this.#http.stream({ method: "POST", path: routes.casesExportCsv(), idempotent: true }, deadlineMs);
  }

  /**
   * Streams the CSV export to `<path>.partial`, renamed to `path` when complete: a failed export never
   * leaves a truncated file under that name. `onProgress` gets the bytes written after each chunk.
   */
  async exportCasesCsvToFile(
    path: string,
    options: CsvExportToFileOptions | ((bytes: number) => void) = {},
  ): Promise<{ bytes: number }> {
    return csvExport().exportToFile(path, options, (rest) => this.exportCasesCsv(rest));
  }

  /**
   * Ends in-flight requests at once (they fail with SECOPS_NETWORK, or SECOPS_AMBIGUOUS for a write
   * that may have landed) and closes the pool; nothing is retried. For cancellation: prefer close().
   */
  async destroy(): Promise<void> {
    await this.#http.destroy();
  }

  /** Closes the client's connection pool (not an injected dispatcher). */
  async close(): Promise<void> {
    await this.#http.close();
  }

  /** Sends a request and validates its answer (an unusable one is re-sent by the transport's loop). */
  private request<T extends z.ZodType>(spec: RequestSpec, schema: T): Promise<z.output<T>> {
    return this.#http.json(spec, (body) => V().parseResponse(schema, body, spec.method, spec.path));
  }
}

/** SECOPS_INCOMPLETE for the pages of `path`: never a silent subset. */
function incomplete(path: string, reason: string): SecOpsResponseError {
  return new SecOpsResponseError(ErrorCodes.INCOMPLETE, `GET ${path}: ${reason}`, { method: "GET", path });
}
