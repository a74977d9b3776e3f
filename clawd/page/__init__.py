"""What clawd does to a page over CDP: snapshots and refs, actions, page state, observation."""
