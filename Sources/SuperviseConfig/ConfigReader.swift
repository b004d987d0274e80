import SuperviseLifecycle
import SuperviseSystem
import SuperviseProtocol

/// Reads the values of the config file's keys into a ``ConfigLevel``, with
/// errors that name the file, the line and the key.
struct ConfigReader {
    let path: String

    func error(_ line: Int, _ message: String) -> UsageError {
        UsageError("\(path):\(line): \(message)")
    }

    /// Reads one `key = value` of the top level (`section == nil`) or of a child's table.
    func read(_ entry: TOMLTable.Entry, into level: inout ConfigLevel, section: String?) throws(UsageError) {
        let value = entry.value
        let key = section.map { "\($0) \(ControlText.excerpt(entry.key))" } ?? ControlText.excerpt(entry.key)
        func fail(_ problem: String) -> UsageError { error(entry.line, "\(key): \(problem)") }
        switch entry.key {
        case "window": level.settings.window = try duration(value, fail)
        case "limit": level.settings.limit = try duration(value, fail)
        case "expiry-warning": level.settings.expiryWarning = try duration(value, fail)
        case "grace": level.settings.grace = try duration(value, fail)
        case "freeze-timeout": level.settings.freezeTimeout = try duration(value, fail)
        case "freezer": level.settings.freezer = try choice(value, FreezerChoice.self, fail)
        case "on-window-overrun": level.settings.onWindowOverrun = try choice(value, WindowOverrunAction.self, fail)
        case "launch": level.settings.launch = try choice(value, LaunchState.self, fail)
        case "stop-signal":
            let text: String
            switch value {
            case .string(let name): text = name
            case .integer(let number): text = String(number)
            default: throw fail("expected a signal name like \"TERM\" or a number, found \(value.typeName)")
            }
            do throws(UsageError) {
                level.settings.stopSignal = try SignalName.parse(text)
            } catch {
                throw fail(error.message)
            }
        case "max-tasks":
            guard case .integer(let count) = value, (1...1_000_000).contains(count) else {
                throw fail("expected a whole number of tasks from 1 to 1000000, found \(ControlText.excerpt("\(value)"))")
            }
            level.settings.maxOpenTasks = Int(count)
        case "aware":
            guard case .boolean(let flag) = value else { throw fail("expected true or false, found \(value.typeName)") }
            level.settings.aware = flag
        case "launch-timeout": level.settings.launchTimeout = try duration(value, fail)
        case "refresh-time": level.settings.refreshTime = try duration(value, fail)
        case "processing-time": level.settings.processingTime = try duration(value, fail)
        case "schedule" where section != nil: level.schedules = try schedules(entry, key: key)
        case "restart": level.restart = try choice(value, RestartPolicy.self, fail)
        case "restart-delay": level.restartDelay = try duration(value, fail)
        case "restart-delay-max": level.restartDelayMax = try duration(value, fail)
        case "restart-after-violation":
            guard case .boolean(let flag) = value else { throw fail("expected true or false, found \(value.typeName)") }
            level.restartAfterViolation = flag
        case "autostart":
            guard case .boolean(let flag) = value else { throw fail("expected true or false, found \(value.typeName)") }
            level.autostart = flag
        case "priority":
            guard case .integer(let number) = value, (-1_000_000...1_000_000).contains(number) else {
                throw fail("expected a whole number from -1000000 to 1000000, found \(ControlText.excerpt("\(value)"))")
            }
            level.priority = Int(number)
        case "suspended-memory" where section == nil:
            switch value {
            case .integer(let bytes) where bytes >= 0: level.suspendedMemory = UInt64(bytes)
            case .string(let text):
                do throws(UsageError) {
                    level.suspendedMemory = try MemorySize.parse(text)
                } catch {
                    throw fail(error.message)
                }
            default: throw fail("expected bytes or a size like \"512M\", found \(ControlText.excerpt("\(value)"))")
            }
        case "command" where section != nil:
            guard case .array(let elements) = value else {
                throw fail("expected an array of strings like [\"program\", \"arg\"], found \(value.typeName)")
            }
            var argv: [String] = []
            for element in elements {
                guard case .string(let argument) = element else {
                    throw fail("expected an array of strings, found \(element.typeName) in it")
                }
                guard !argument.contains("\0") else { throw fail("an argument contains a NUL character") }
                argv.append(argument)
            }
            guard let program = argv.first, !program.isEmpty else {
                throw fail("empty command: give the program and its arguments, e.g. [\"./worker\", \"--fast\"]")
            }
            level.command = argv
        case "env" where section != nil:
            guard case .table(let table) = value else {
                throw fail("expected a table of strings like { NAME = \"value\" }, found \(value.typeName)")
            }
            for variable in table.entries {
                guard case .string(let text) = variable.value else {
                    throw error(variable.line, "\(key).\(ControlText.excerpt(variable.key)): expected a string, found "
                        + "\(variable.value.typeName) (quote numbers: \"8080\")")
                }
                guard !variable.key.isEmpty, !variable.key.contains("="), !variable.key.contains("\0") else {
                    throw error(variable.line, "\(key): invalid variable name '\(ControlText.excerpt(variable.key))': it must be "
                        + "non-empty, without '=' or NUL")
                }
                guard !text.contains("\0") else {
                    throw error(variable.line, "\(key).\(ControlText.excerpt(variable.key)): the value contains a NUL character")
                }
                level.environment[variable.key] = text
            }
        case "cwd" where section != nil:
            guard case .string(let directory) = value else { throw fail("expected a string, found \(value.typeName)") }
            guard !directory.isEmpty, !directory.contains("\0") else {
                throw fail("expected a directory path, found '\(ControlText.excerpt(directory))'")
            }
            level.workingDirectory = directory
        case "user" where section != nil: level.user = (try nameOrNumber(value, fail), entry.line)
        case "group" where section != nil: level.group = (try nameOrNumber(value, fail), entry.line)
        case "groups" where section != nil:
            guard case .array(let elements) = value else {
                throw fail("expected an array of group names or gids like [\"audio\", 44], found \(value.typeName)")
            }
            var texts: [String] = []
            for element in elements { texts.append(try nameOrNumber(element, fail)) }
            level.groups = (texts, entry.line)
        case "capabilities" where section != nil:
            guard case .array(let elements) = value else {
                throw fail("expected an array of names like [\"cap_net_bind_service\"], found \(value.typeName)")
            }
            var names: [String] = []
            for element in elements {
                guard case .string(let name) = element else {
                    throw fail("expected capability names, found \(element.typeName) in it")
                }
                names.append(name)
            }
            level.capabilities = (names, entry.line)
        case "allow-new-privileges" where section != nil:
            guard case .boolean(let flag) = value else { throw fail("expected true or false, found \(value.typeName)") }
            level.allowsNewPrivileges = flag
        case _ where section == nil && ConfigFile.pressureKeys.contains(entry.key):
            try readPressure(entry, into: &level.memoryPressure, fail)
        default:
            throw unknownKey(entry, key: key, section: section)
        }
    }

    /// The privileges a child's table asks for, with names resolved now: an unknown user,
    /// group or capability is a mistake in the file, found before anything is launched.
    func privileges(of level: ConfigLevel, section: String) throws(UsageError) -> ChildPrivileges {
        var privileges = ChildPrivileges(allowsNewPrivileges: level.allowsNewPrivileges)
        if let capabilities = level.capabilities {
            do throws(PrivilegeLookupError) {
                privileges.capabilities = try CapabilitySet.parse(capabilities.names)
            } catch {
                throw self.error(capabilities.line, "\(section) capabilities: \(error.message)")
            }
        }
        guard let user = level.user else {
            if let stray = level.group?.line ?? level.groups?.line {
                throw self.error(stray, "\(section) group and groups need a user: add user = \"NAME\"")
            }
            return privileges
        }
        do throws(PrivilegeLookupError) {
            privileges.identity = try UserDatabase.identity(user: user.text, group: level.group?.text,
                                                            groups: level.groups?.texts)
        } catch {
            throw self.error(user.line, "\(section) user: \(error.message)")
        }
        return privileges
    }

    private func nameOrNumber(_ value: TOMLValue, _ fail: (String) -> UsageError) throws(UsageError) -> String {
        switch value {
        case .string(let name) where !name.isEmpty && !name.contains("\0"): return name
        case .integer(let number) where (0...Int64(UInt32.max - 1)).contains(number): return String(number)
        default: throw fail("expected a name or a number, found \(ControlText.excerpt("\(value)"))")
        }
    }

    private func unknownKey(_ entry: TOMLTable.Entry, key: String, section: String?) -> UsageError {
        let shared = ConfigFile.settingKeys + ConfigFile.restartKeys + ConfigFile.startKeys
        let known = section == nil
            ? shared + ConfigFile.runKeys + ["child"]
            : ConfigFile.commandKeys + shared
        if section == nil, ConfigFile.commandKeys.contains(entry.key) {
            return error(entry.line, "\(key): belongs in a child's table: put it under [child.NAME]")
        }
        if section != nil, ConfigFile.runKeys.contains(entry.key) {
            return error(entry.line, "\(key): concerns the whole run: put it at the top of the file")
        }
        let hint = ControlText.closest(to: entry.key, in: known).map { " (did you mean '\($0)'?)" } ?? ""
        return error(entry.line, "\(key): unknown key\(hint): expected one of \(known.joined(separator: ", "))")
    }

    func duration(_ value: TOMLValue, _ fail: (String) -> UsageError) throws(UsageError) -> Duration {
        switch value {
        case .string(let text):
            do throws(UsageError) {
                return try DurationParser.parse(text)
            } catch {
                throw fail(error.message)
            }
        case .integer(let seconds):
            guard seconds >= 0 else { throw fail("\(seconds) is negative: durations must not be negative") }
            guard seconds <= Int64.max / 1_000_000_000 else { throw fail("\(seconds) seconds is too long") }
            return .seconds(seconds)
        case .float(let seconds, let text):
            guard seconds.isFinite else { throw fail("\(ControlText.excerpt(text)) is not a duration: give seconds or a string like \"2s\"") }
            guard seconds >= 0 else { throw fail("\(ControlText.excerpt(text)) is negative: durations must not be negative") }
            guard seconds * 1e9 < 9.2e18 else { throw fail("\(ControlText.excerpt(text)) seconds is too long") }
            if let exact = try? DurationParser.parse(text) { return exact }
            return .nanoseconds(Int64((seconds * 1e9).rounded()))
        default:
            throw fail("expected a duration: a number of seconds or a string like \"2s\" or \"250ms\", "
                + "found \(value.typeName)")
        }
    }

    func choice<Choice: RawRepresentable & CaseIterable>(
        _ value: TOMLValue, _ type: Choice.Type, _ fail: (String) -> UsageError
    ) throws(UsageError) -> Choice where Choice.RawValue == String {
        let names = Choice.allCases.map(\.rawValue)
        let expected = names.dropLast().joined(separator: ", ") + " or " + names.last!
        guard case .string(let text) = value else {
            throw fail("expected a string (\(expected)), found \(value.typeName)")
        }
        guard let result = Choice(rawValue: text) else {
            throw fail("unknown value '\(ControlText.excerpt(text))': expected \(expected)")
        }
        return result
    }
}
