/**
 * outrider's approver over ACP: every question the permission gate would put to the user
 * becomes a `session/request_permission` on the session whose call asks (a sub-agent's child
 * session when the editor shows them), tied to the tool call the editor already shows.
 */
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SendRequestOptions,
} from '@agentclientprotocol/sdk/unstable';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../core/index.js';
import { editDiff, textContent, toolKind, toolLocations, toolTitle } from './tool-calls.js';

const OPTIONS: readonly (PermissionOption & { optionId: ApprovalAnswer })[] = [
  { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Allow always', kind: 'allow_always' },
  { optionId: 'deny', name: 'Reject', kind: 'reject_once' },
];

export interface AcpApproverOptions {
  /** Sends the request to the editor. */
  request: (params: RequestPermissionRequest, options: SendRequestOptions) => Promise<RequestPermissionResponse>;
  /** The ACP session a question belongs to: the parent's, or a job's child session when the editor shows it. */
  sessionFor: (jobId: string | undefined) => { sessionId: string; labelled: boolean };
  cwd: string;
  /** Tells what went wrong asking (the editor failed the request): the call is then denied. */
  warn: (text: string) => void;
}

export function acpApprover(options: AcpApproverOptions): Approver {
  let asked = 0;
  return async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    if (signal.aborted) return 'deny';
    asked += 1;
    const { sessionId, labelled } = options.sessionFor(request.jobId);
    const title = toolTitle(request.toolName, request.label, request.args);
    const params: RequestPermissionRequest = {
      sessionId,
      toolCall: {
        // A question that is not about one call (too many sub-agents at once) gets an id of its own.
        toolCallId: request.callId ?? `outrider-ask-${asked}`,
        title: labelled && request.jobId ? `${request.jobId}: ${title}` : title,
        kind: toolKind(request.toolName),
        locations: toolLocations(request.toolName, request.args, options.cwd),
        rawInput: request.args,
        content: [...editDiff(request.toolName, request.args, options.cwd), textContent(request.reason)],
      },
      options: OPTIONS.map(({ optionId, name, kind }) =>
        optionId === 'allow-always' ? { optionId, name: alwaysName(request), kind } : { optionId, name, kind },
      ),
    };
    try {
      const response = await options.request(params, { cancellationSignal: signal, stopWaitingOnCancel: true });
      const outcome = response.outcome;
      if (outcome.outcome !== 'selected') return 'deny';
      return OPTIONS.find((option) => option.optionId === outcome.optionId)?.optionId ?? 'deny';
    } catch (error) {
      if (!signal.aborted) options.warn(`the editor did not answer a permission request: ${describe(error)}`);
      return 'deny';
    }
  };
}

/** "Allow always" says what it covers: bash is remembered per exact command, other tools by name. */
function alwaysName(request: ApprovalRequest): string {
  return request.toolName === 'bash' ? 'Always allow this command' : `Always allow ${request.toolName}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
