// ledgerboard: the digests' "Copy" buttons (src/components/Digest.astro; docs/site.md). Without JavaScript the buttons stay
// hidden and the full value is in the <details>. Copies the full value; without clipboard access, selects it instead.
for (const button of document.querySelectorAll('button[data-copy]')) {
  const box = button.closest('.digest');
  const full = box.querySelector('.digest-full');
  const status = box.querySelector('[data-copy-status]');
  button.hidden = false;
  button.addEventListener('click', async () => {
    status.textContent = '';
    try {
      await navigator.clipboard.writeText(full.textContent);
      status.textContent = 'Copied';
    } catch {
      box.querySelector('details').open = true;
      const range = document.createRange();
      range.selectNodeContents(full);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      status.textContent = 'Selected: press Ctrl+C to copy';
    }
  });
}
