// The job page's time to interactive for a 256-task job: a generated pipeline whose tasks ask for an
// architecture no worker offers (they stay waiting or blocked, so the page is measured, not the run),
// opened in Chromium; the time is from navigation start to the page's `conveyor:job-page-ready` mark
// (the first render with the job, its graph and the buttons' manage decision).
import type { Browser, Page } from 'playwright-core';
import { ADMIN, newContext, signIn, type Product } from '../testing/index.js';
import { createProject, startJob } from '../testing/projects.js';

/** An architecture no worker offers: the tasks stay put and say why. */
export const UNOFFERED_ARCH = 'bench_nowhere';
export const STAGES = 4;
export const GROUPS_PER_STAGE = 4;
export const VARIANTS = 16;
/** 4 stages × 4 matrix tasks × 16 variants. */
export const LARGE_JOB_TASKS = STAGES * GROUPS_PER_STAGE * VARIANTS;

/** Stages of matrix tasks; each task of a stage needs one task (all its variants) of the stage before. */
export function largePipeline(): string {
  const lines = ['tasks:'];
  const shards = Array.from({ length: VARIANTS }, (_, index) => `"${index + 1}"`).join(', ');
  for (let stage = 0; stage < STAGES; stage += 1) {
    for (let group = 0; group < GROUPS_PER_STAGE; group += 1) {
      lines.push(`  s${stage}-g${group}:`, `    arch: ${UNOFFERED_ARCH}`, '    script: ["true"]', `    matrix: {shard: [${shards}]}`);
      if (stage > 0) lines.push(`    needs: [s${stage - 1}-g${group}]`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Opens the job page and resolves with its time to interactive (navigation start to the ready mark), in ms. */
export async function measureJobPage(page: Page, url: string): Promise<number> {
  await page.goto(url);
  await page.locator('[data-ready="true"]').waitFor();
  return page.evaluate(() => {
    const mark = performance.getEntriesByName('conveyor:job-page-ready')[0];
    if (mark === undefined) throw new Error('the job page set no conveyor:job-page-ready mark');
    return mark.startTime;
  });
}

export interface JobPageBench {
  tti_ms: number;
  tasks: number;
}

/**
 * Creates the 256-task job in `product` (a running `conveyor dev`, see testing/product.ts) and opens its
 * page `rounds` times in a fresh signed-in context; returns the median time to interactive.
 */
export async function benchJobPage(product: Product, browser: Browser, rounds = 5): Promise<JobPageBench> {
  const context = await newContext(browser);
  const page = await context.newPage();
  await signIn(page, product.url, ADMIN.username, ADMIN.password);
  const project = await createProject(product, context.request, 'bench-large', largePipeline());
  try {
    const { number } = await startJob(product, context.request, 'bench-large');
    const url = `${product.url}/projects/bench-large/jobs/${number}`;
    const times: number[] = [];
    for (let round = 0; round < rounds; round += 1) times.push(await measureJobPage(page, url));
    const tasks = await page.locator('a.task-link').count();
    times.sort((a, b) => a - b);
    return { tti_ms: Math.round(times[Math.floor(times.length / 2)] ?? Number.NaN), tasks };
  } finally {
    await context.close();
    project.remove();
  }
}
