// The helpdesk fixture app's suite as a QA team writes it in Playwright Test: role, label
// and text locators, web-first assertions. Each test checks what its journey under
// ../app/journeys/ checks (same name), no more and no less.
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

const rows = (page) => page.getByRole('table', { name: 'Tickets' }).getByRole('row').filter({ hasText: /^T-/ });
const row = (page, id) => page.getByRole('row').filter({ hasText: id });

test('signin_requires_password', async ({ page }) => {
  await page.goto('/signin.html');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter your password');
  await expect(page).toHaveURL(/\/signin\.html$/);
});

test('signin', async ({ page }) => {
  await page.goto('/signin.html');
  await page.getByLabel('Email').fill('ada@example.com');
  await page.getByLabel('Password').fill('correct horse');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/index\.html$/);
  await expect(page.getByRole('status')).toHaveText('Welcome back, ada@example.com');
});

test('home_to_tickets', async ({ page }) => {
  await page.goto('/index.html');
  await expect(page.getByRole('status')).toHaveText('You are not signed in');
  await page.getByRole('link', { name: 'Tickets', exact: true }).click();
  await expect(page).toHaveURL(/\/tickets\.html$/);
});

test('tickets_load', async ({ page }) => {
  await page.goto('/tickets.html');
  await expect(page.getByRole('status')).toHaveText('12 tickets');
  await expect(rows(page)).toHaveCount(12);
});

test('tickets_search', async ({ page }) => {
  await page.goto('/tickets.html');
  await expect(row(page, 'T-112')).toBeVisible();
  await page.getByLabel('Search tickets').fill('printer');
  await expect(rows(page)).toHaveText([/^T-101/, /^T-104/]);
  await expect(page.getByRole('status')).toHaveText('2 tickets');
  await page.getByLabel('Search tickets').fill('');
  await page.getByLabel('Show').selectOption('Closed');
  await expect(rows(page)).toHaveText([/^T-105/, /^T-109/]);
});

test('ticket_close', async ({ page }) => {
  await page.goto('/tickets.html');
  await page.getByRole('button', { name: 'Close T-104' }).click();
  await expect(page.getByRole('dialog')).toHaveAccessibleName('Close ticket T-104?');
  await page.getByRole('button', { name: 'Close ticket' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();
  await expect(page.getByRole('status')).toHaveText('Ticket T-104 closed');
  await expect(row(page, 'T-104')).toContainText('Closed');
  await expect(page.getByRole('button', { name: 'Close T-104' })).toHaveCount(0);
});

test('ticket_keep_open', async ({ page }) => {
  await page.goto('/tickets.html');
  await page.getByRole('button', { name: 'Close T-102' }).click();
  await expect(page.getByRole('dialog')).toHaveAccessibleName('Close ticket T-102?');
  await page.getByRole('button', { name: 'Keep open' }).click();
  await expect(page.getByRole('dialog')).toBeHidden();
  await expect(row(page, 'T-102')).toContainText('Open');
  await expect(page.getByRole('status')).toHaveText('12 tickets');
});

test('new_ticket', async ({ page }) => {
  await page.goto('/new.html');
  await page.getByLabel('Title').fill('Scanner offline');
  await page.getByLabel('Priority').selectOption('High');
  await page.getByLabel('What happened?').fill('The scanner on the second floor shows no light.');
  await page.getByLabel('Attachment').setInputFiles(fileURLToPath(new URL('../app/journeys/fixtures/error.txt', import.meta.url)));
  await expect(page.getByRole('status')).toHaveText('error.txt attached (50 characters)');
  await page.getByRole('button', { name: 'Create ticket' }).click();
  await expect(page).toHaveURL(/\/created\.html$/);
  await expect(page.getByRole('status')).toHaveText('Created T-113 with error.txt');
  await page.getByRole('link', { name: 'Tickets', exact: true }).click();
  await expect(row(page, 'T-113')).toBeVisible();
  await expect(row(page, 'T-113')).toContainText('Scanner offline');
  await expect(row(page, 'T-113')).toContainText('High');
});

test('new_ticket_requires_title', async ({ page }) => {
  await page.goto('/new.html');
  await page.getByLabel('What happened?').fill('Something broke.');
  await page.getByRole('button', { name: 'Create ticket' }).click();
  await expect(page.getByRole('alert')).toHaveText('Title is required');
  await expect(page).toHaveURL(/\/new\.html$/);
});

test('report', async ({ page }) => {
  await page.goto('/reports.html');
  await page.getByLabel('Period').selectOption('This month');
  await page.getByRole('button', { name: 'Load report' }).click();
  await expect(page.getByRole('table', { name: 'Tickets by priority' })).toBeVisible();
  await expect(page.getByRole('status')).toHaveText('This month: 47 tickets');
});

test('settings', async ({ page }) => {
  await page.goto('/settings.html');
  const save = page.getByRole('button', { name: 'Save settings' });
  await expect(save).toBeDisabled();
  await page.getByRole('radio', { name: 'Dark' }).check();
  await page.getByLabel('Language').selectOption('Deutsch');
  await page.getByLabel('Email me about my tickets').uncheck();
  await save.click();
  await expect(page.getByRole('status')).toHaveText('Saved: dark theme, Deutsch, no email');
  await expect(save).toBeDisabled();
});
