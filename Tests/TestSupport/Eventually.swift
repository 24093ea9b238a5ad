import Foundation

/// Polls `condition` every 5 ms until it holds or `timeout` seconds pass; returns its last value.
public func eventually(timeout: Double = 3, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5_000)
    }
    return condition()
}
