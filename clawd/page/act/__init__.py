"""Acting on a page: the act kinds, real input, forms, dialogs, file choosers, downloads, waits,
settling."""
