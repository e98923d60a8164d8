import { useRef, useState } from 'preact/hooks';
import { pipeline, unwrap, type PipelineSchemas } from '../../api/client';
import { CopyButton, ErrorBox, Loading } from '../../components/common';
import { useResource } from '../../lib/use-resource';

type Steps = PipelineSchemas['WebhookSetup']['steps'];

const KINDS: { key: keyof Steps; label: string }[] = [
  { key: 'git_hook', label: 'Git hook' },
  { key: 'github', label: 'GitHub' },
  { key: 'gitlab', label: 'GitLab' },
  { key: 'gitea', label: 'Gitea' },
  { key: 'forgejo', label: 'Forgejo' },
];

/** A step and the script lines that follow it (a hook's file), so the lines read as one block to copy. */
interface Step {
  text: string;
  code: string[];
}

function isScriptLine(line: string): boolean {
  return line.startsWith('#!') || line.startsWith('exec ');
}

function groupSteps(lines: string[]): Step[] {
  const steps: Step[] = [];
  for (const line of lines) {
    const last = steps.at(-1);
    if (isScriptLine(line) && last !== undefined) last.code.push(line);
    else steps.push({ text: line, code: [] });
  }
  return steps;
}

/** The steps as plain text, numbered, for the clipboard. */
function stepsAsText(label: string, steps: Step[]): string {
  const body = steps.map((step, index) => [`${index + 1}. ${step.text}`, ...step.code.map((line) => `   ${line}`)].join('\n')).join('\n');
  return `Connect ${label} to Conveyor\n${body}\n`;
}

function StepList({ label, steps }: { label: string; steps: Step[] }) {
  return (
    <>
      <div class="steps-header">
        <h3>{label}</h3>
        <CopyButton text={stepsAsText(label, steps)} label={`Copy the ${label} steps`} />
      </div>
      <ol class="steps">
        {steps.map((step) => (
          <li key={step.text}>
            {step.text}
            {step.code.length > 0 ? (
              <div class="code-with-copy">
                <pre class="block" tabIndex={0}>{step.code.join('\n')}</pre>
                <CopyButton text={`${step.code.join('\n')}\n`} label={`Copy the ${label} script`} />
              </div>
            ) : null}
          </li>
        ))}
      </ol>
    </>
  );
}

/** The trigger URL and, in tabs, how to make each kind of git server call it. */
export function WebhookSetup({ project }: { project: string }) {
  const setup = useResource(`webhook:${project}`, () => unwrap(pipeline.GET('/api/v1/projects/{project}/webhook', { params: { path: { project } } })));
  const [selected, setSelected] = useState(0);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  const onKey = (event: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowRight: selected + 1, ArrowLeft: selected - 1, Home: 0, End: KINDS.length - 1 };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const index = (next + KINDS.length) % KINDS.length;
    setSelected(index);
    tabs.current[index]?.focus();
  };

  const data = setup.data;
  const kind = KINDS[selected] ?? KINDS[0]!;
  return (
    <section class="card" aria-labelledby="webhook-title">
      <h2 id="webhook-title">Connect a git server</h2>
      {setup.error !== null ? <ErrorBox error={setup.error} title="The webhook setup could not be loaded" /> : null}
      {data === null ? (
        setup.loading ? <Loading what="the webhook setup" /> : null
      ) : (
        <>
          <p>Each push to the repository should reach this address, signed with the trigger secret:</p>
          <div class="code-with-copy">
            <code class="webhook-url">{data.url}</code>
            <CopyButton text={data.url} label="Copy the webhook URL" />
          </div>
          <p class="field-hint">
            Where a step asks for the secret, give the trigger secret shown when the project was created or its secret last rotated (above).
          </p>
          <div class="tabs" role="tablist" aria-label="Git servers">
            {KINDS.map((entry, index) => (
              <button
                key={entry.key}
                type="button"
                role="tab"
                id={`webhook-tab-${entry.key}`}
                aria-selected={index === selected}
                aria-controls="webhook-panel"
                tabIndex={index === selected ? 0 : -1}
                ref={(element) => {
                  tabs.current[index] = element;
                }}
                onClick={() => setSelected(index)}
                onKeyDown={onKey}
              >
                {entry.label}
              </button>
            ))}
          </div>
          <div class="tab-panel" role="tabpanel" id="webhook-panel" aria-labelledby={`webhook-tab-${kind.key}`} tabIndex={0}>
            <StepList label={kind.label} steps={groupSteps(data.steps[kind.key])} />
          </div>
        </>
      )}
    </section>
  );
}
