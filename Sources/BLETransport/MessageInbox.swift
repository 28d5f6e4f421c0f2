/// Where a message channel's events wait for the receiver: in arrival order, with one
/// waiting receiver at a time that a timeout can release. After the `.closed` event, every
/// receive returns it again.
actor MessageInbox {
    private var queue: [MessageChannelEvent] = []
    private var closedBy: BLESessionEndReason?
    private var waiter:
        (id: Int, continuation: CheckedContinuation<MessageChannelEvent?, Never>, timer: Task<Void, Never>?)?
    private var nextWaiterID = 0

    /// Whether `.closed` was delivered.
    var isClosed: Bool { closedBy != nil }

    func deliver(_ event: MessageChannelEvent) {
        guard closedBy == nil else { return }
        if case .closed(let reason) = event { closedBy = reason }
        if let waiter {
            self.waiter = nil
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: event)
        } else {
            queue.append(event)
        }
    }

    /// The next event; nil after `timeout` (nil: none).
    func next(timeout: Duration?) async -> MessageChannelEvent? {
        if !queue.isEmpty { return queue.removeFirst() }
        if let closedBy { return .closed(closedBy) }
        if let timeout, timeout <= .zero { return nil }
        nextWaiterID += 1
        let id = nextWaiterID
        return await withCheckedContinuation { continuation in
            let timer = timeout.map { timeout in
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    await self?.expire(id)
                }
            }
            waiter = (id, continuation, timer)
        }
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}
