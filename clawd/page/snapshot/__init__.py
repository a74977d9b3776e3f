"""Reading a page: the aria walker (js/), its text, the accessibility tree, refs."""
