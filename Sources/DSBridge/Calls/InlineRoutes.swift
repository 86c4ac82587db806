// SPDX-License-Identifier: MIT

/// The resolved routes of a frame's calls, by message index, for a frame the network thread
/// runs (``InlineDispatchPolicy/routes(for:session:registry:)``).
///
/// Most frames carry one call: its route is kept inline, so such a frame allocates nothing
/// here. The routes of a batch's further calls go to an array, in message order.
struct InlineRoutes {
    /// A route and the index of its message in the frame.
    typealias Entry = (index: Int, route: Result<CallRoute, CallFailure>)

    /// The first call's message index (-1: none yet) and route.
    private var firstIndex = -1
    private var firstRoute: Result<CallRoute, CallFailure>?
    /// The later calls', by increasing message index.
    private var rest: [Entry] = []

    /// Notes the route of the call at message `index` (indices come in increasing order).
    mutating func append(_ route: Result<CallRoute, CallFailure>, at index: Int) {
        if firstIndex < 0 {
            firstIndex = index
            firstRoute = route
        } else {
            rest.append((index, route))
        }
    }

    /// The route of the call at message `index`, if one was noted.
    func route(at index: Int) -> Result<CallRoute, CallFailure>? {
        if index == firstIndex { return firstRoute }
        // Binary search: the indices are increasing.
        var low = 0
        var high = rest.count
        while low < high {
            let middle = (low + high) / 2
            if rest[middle].index < index { low = middle + 1 } else { high = middle }
        }
        return low < rest.count && rest[low].index == index ? rest[low].route : nil
    }
}
