// The attempt's artifacts: path, size, sha256 (copyable) and a download link each.
import type { PipelineSchemas } from '../../api/client';
import { CopyButton } from '../../components/common';
import { formatBytes } from '../../lib/format';

type Artifact = PipelineSchemas['Artifact'];

export function artifactUrl(project: string, job: string, task: string, artifact: string): string {
  return `/api/v1/projects/${encodeURIComponent(project)}/jobs/${encodeURIComponent(job)}/tasks/${encodeURIComponent(task)}/artifacts/${encodeURIComponent(artifact)}`;
}

export function Artifacts(props: { artifacts: Artifact[]; patterns: string[]; attempt: number; project: string; job: string; task: string }) {
  const { artifacts, patterns } = props;
  return (
    <section class="task-artifacts" aria-labelledby="artifacts-heading">
      <h2 id="artifacts-heading">Artifacts of attempt {props.attempt}</h2>
      {artifacts.length === 0 ? (
        <p class="muted">
          No artifacts.{' '}
          {patterns.length === 0 ? (
            <>
              The task keeps none: list files under <code>artifacts:</code> in its pipeline file to keep them.
            </>
          ) : (
            `The task keeps files matching ${patterns.join(', ')}; this attempt stored none (it may not have finished, or its files expired).`
          )}
        </p>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Size</th>
              <th scope="col">SHA-256</th>
              <th scope="col">Download</th>
            </tr>
          </thead>
          <tbody>
            {artifacts.map((artifact) => (
              <tr key={artifact.id}>
                <td class="mono">{artifact.path}</td>
                <td class="nowrap">{formatBytes(artifact.size)}</td>
                <td>
                  <code class="sha" title={artifact.sha256} data-sha256={artifact.sha256}>
                    {artifact.sha256.slice(0, 16)}…
                  </code>{' '}
                  <CopyButton text={artifact.sha256} label={`Copy the SHA-256 of ${artifact.path}`} />
                </td>
                <td>
                  <a href={artifactUrl(props.project, props.job, props.task, artifact.id)} download aria-label={`Download ${artifact.path}`}>
                    Download
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
