// SPDX-License-Identifier: MIT
import Foundation

/// The default name of a node (`--node-id`): `HOSTNAME:PORT`, or `HOSTNAME:pidPID` when the
/// port is chosen at start (`--port 0`), so that two nodes on one host differ.
public enum ClusterNodeName {
    public static func `default`(port: Int) -> String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "node"
        return port == 0 ? "\(host):pid\(getpid())" : "\(host):\(port)"
    }
}
