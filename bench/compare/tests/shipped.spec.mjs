// The shipped journeys (../../journeys/, against the embedded demo app) as Playwright Test
// specs: each test checks what its journey checks, a waymark screen id by the page's
// address and heading. Ported: the five journeys that drive the app as a user does.
// Left out, as Playwright has no counterpart: error_codes (waymark's error codes),
// read_only_review (its allowed-set gate) and dense_truncation (its truncation report);
// and the journeys' snapshot() steps (approve_claim, dispatch_unassigned), which compare a
// whole read with a stored file: waymark does that work and Playwright does not here.
import { expect, test } from '@playwright/test';

test('approve_claim', async ({ page }) => {
  await page.goto('/claims');
  await page.getByRole('link', { name: 'Claim 1042', exact: true }).click();
  await expect(page).toHaveURL(/\/claims\/1042$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Claim 1042');
  await page.getByLabel('Note').fill('Invoice matches the policy limits; approved.');
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(page).toHaveURL(/\/claims/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Claims');
  await page.getByRole('link', { name: 'Claim 1042', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Approve' })).toBeDisabled();
});

test('submit_sales_order', async ({ page }) => {
  await page.goto('/orders');
  await page.getByRole('link', { name: 'Order 42', exact: true }).click();
  await page.getByLabel('PO reference').fill('PO-7731');
  await page.getByLabel('Quantity line 1').fill('3');
  const submit = page.getByRole('button', { name: 'Submit Order' });
  await expect(submit).toHaveText('Submit Order');
  await submit.click();
  await expect(page).toHaveURL(/\/orders\/42\/confirmation$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('42');
});

test('dispatch_unassigned', async ({ page }) => {
  await page.goto('/dispatch?day=tomorrow');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Dispatch board');
  const unassigned = page.getByRole('region', { name: 'Unassigned jobs' });
  const jobs = unassigned.getByRole('button', { name: /^J-/ });
  await expect(jobs.first()).toBeVisible();
  const n = await jobs.count();
  expect(n).toBeGreaterThanOrEqual(5);
  for (const card of await unassigned.getByRole('article').all()) {
    await expect(card.getByRole('button', { name: 'Assign' })).toHaveCount(1);
  }
});

test('return_reason', async ({ page }) => {
  await page.goto('/returns/new');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New return');
  await page.getByLabel('Return reason').selectOption('Wrong item');
  await page.getByLabel('Describe the reason').fill('Ordered the blue kettle,\nreceived the red one.');
  await expect(page.getByLabel('Return reason')).toHaveValue('Wrong item');
  await expect(page).toHaveURL(/\/returns\/new$/);
  await expect(page.getByLabel('Order number')).toHaveValue('');
});

test('stage_new_rate', async ({ page }) => {
  await page.goto('/accounts');
  await page.getByRole('row', { name: /Contoso/ }).getByRole('link', { name: 'Pricing rules' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Pricing rules');
  const url = page.url();
  await page.getByLabel('New rate (%)').fill('6.25\n');
  await expect(page).toHaveURL(url);
  await expect(page.getByLabel('New rate (%)')).toHaveValue('6.25');
  await page.goto(url);
  await expect(page.getByLabel('New rate (%)')).not.toHaveValue('6.25');
});
