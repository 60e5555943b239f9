import Foundation

/// A condition a member must meet to win a campaign, read from one etcd key: "only an in-sync
/// member may lead".
///
/// How it holds under concurrent change: the elector reads `key` just before its campaign and
/// asks `allows` about the value it read (membership is checked here, in the member, where the
/// value's format is known); the campaign transaction then also compares the key's
/// `mod_revision` with the one read, so the member wins only if the key has not changed since it
/// decided. A comparison of the value itself inside etcd would need the whole expected value;
/// the revision says the same ("unchanged since I read it") for any format.
package struct CampaignCondition: Sendable {
    package let key: String
    /// Whether the member may win, given the key as read (nil: the key does not exist).
    package let allows: @Sendable (EtcdKeyValue?) -> Bool

    package init(key: String, allows: @escaping @Sendable (EtcdKeyValue?) -> Bool) {
        self.key = key
        self.allows = allows
    }

    /// The in-sync set of `group`, at `/actionbus/<group>/insync` as a JSON array of member
    /// names, holds `member`. A missing or unreadable set allows no one.
    package static func inSyncSet(group: String, contains member: String) -> CampaignCondition {
        CampaignCondition(key: inSyncKey(group: group)) { keyValue in
            guard let keyValue, let members = try? JSONDecoder().decode([String].self, from: keyValue.value) else { return false }
            return members.contains(member)
        }
    }

    /// Where a group's in-sync set is kept.
    package static func inSyncKey(group: String) -> String { "/actionbus/\(group)/insync" }
}

extension CampaignCondition {
    /// As ``inSyncSet(group:contains:)``, and while the set was never recorded (a new group),
    /// only the `bootstrap` member may lead, so that two fresh members never both start one.
    package static func inSyncSet(group: String, contains member: String, bootstrap: Bool) -> CampaignCondition {
        let inSet = inSyncSet(group: group, contains: member)
        return CampaignCondition(key: inSet.key) { keyValue in
            keyValue == nil ? bootstrap : inSet.allows(keyValue)
        }
    }
}
