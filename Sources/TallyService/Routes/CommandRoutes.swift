import HTTPTypes
import Hummingbird
import Tally

/// Product commands as `POST` routes. Each takes a JSON body and an `Idempotency-Key`
/// header, which becomes the engine's idempotency key: a repeat with the same body returns
/// the first response (the same events, `Idempotent-Replayed: true`) and appends nothing; a
/// repeat with another body is 409 `idempotency_conflict`, as the ledger decides. Every
/// rule is the library's: a route only reads its fields and calls the command `Ledger`
/// builds (the same methods the CLI calls).
enum CommandRoutes {
    /// A command route: its fields and how its body becomes the ledger's command.
    struct Definition: Sendable {
        let route: ServiceRoute
        let fields: Set<String>
        let build: @Sendable (_ body: JSONBody, _ ledger: Ledger, _ call: Call, _ key: String) throws -> LedgerCommand
    }

    static let idempotencyKeyField = HTTPField.Name("Idempotency-Key")!
    static let replayedField = HTTPField.Name("Idempotent-Replayed")!

    static let all: [Definition] = {
        let commands = wealth + pots + budgets + envelopes + challenges + netWorth + settings
        return commands + commands.compactMap(deletion)
    }()

    /// The operations that end a resource named in the path, and the `DELETE` each also
    /// answers on the resource itself (`DELETE /ledgers/{ledger}/pots/{pot}` is
    /// `POST …/pots/{pot}/deletion`): the same command, key and body (optional: none is `{}`).
    static let deletions: [String: String] = [
        "deletePot": "deletePotResource", "deleteTransaction": "deleteTransactionResource",
        "removeRecurring": "deleteRecurringResource", "deleteEnvelope": "deleteEnvelopeResource",
        "removeAsset": "deleteAssetResource", "removeLiability": "deleteLiabilityResource",
    ]

    private static func deletion(_ definition: Definition) -> Definition? {
        guard let operationId = deletions[definition.route.operationId] else { return nil }
        let path = definition.route.path.split(separator: "/").dropLast().joined(separator: "/")
        return Definition(
            route: ServiceRoute(method: .delete, path: "/" + path, operationId: operationId, security: definition.route.security),
            fields: definition.fields, build: definition.build)
    }

    // MARK: Wealth

    static let wealth: [Definition] = [
        command("depositWealth", "/wealth/{account}/deposits", fields: ["amount", "currency", "source", "external_id", "effective_at"]) { body, ledger, call, key in
            try ledger.depositCommand(
                account: try call.parameter("account"), amount: try money(body, "amount", ledger),
                source: try body.enumeration("source", DepositSource.self, default: .bankTransfer),
                externalId: try body.optionalString("external_id"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("purchaseWealth", "/wealth/{account}/purchases", fields: ["amount", "currency", "merchant", "external_id", "effective_at"]) { body, ledger, call, key in
            try ledger.purchaseCommand(
                account: try call.parameter("account"), amount: try money(body, "amount", ledger), merchant: try body.string("merchant"),
                externalId: try body.optionalString("external_id"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("withdrawWealth", "/wealth/{account}/withdrawals", fields: ["amount", "currency", "destination", "effective_at"]) { body, ledger, call, key in
            try ledger.withdrawCommand(
                account: try call.parameter("account"), amount: try money(body, "amount", ledger),
                destination: try body.optionalString("destination"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setWealthSplitRule", "/wealth/{account}/split-rule", fields: ["spend_weight", "invest_weight", "effective_at"]) { body, ledger, call, key in
            try ledger.setSplitRuleCommand(
                account: try call.parameter("account"), spendWeight: try body.integer("spend_weight"), investWeight: try body.integer("invest_weight"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setWealthRoundUps", "/wealth/{account}/round-ups", fields: ["enabled", "effective_at"]) { body, ledger, call, key in
            guard let enabled = try body.optionalBool("enabled") else { throw Problem.missingField("enabled") }
            return try ledger.setRoundUpsCommand(
                account: try call.parameter("account"), enabled: enabled,
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setRoundUpIncrement", "/settings/round-up-increment", fields: ["currency", "increment", "effective_at"]) { body, ledger, _, key in
            // `tally wealth round-up-increment CUR AMOUNT|none`: for every wealth account.
            let commodity = try currency(body, "currency", ledger)
            let text = try body.string("increment")
            let increment: Money?
            if text.lowercased() == "none" {
                increment = nil
            } else {
                do { increment = try Money(parsing: text, commodity: commodity) } catch {
                    throw Problem(.unprocessableContent, "invalid_amount", "'increment' '\(text)': \(error)", field: "increment")
                }
            }
            return try ledger.setRoundUpIncrementCommand(
                currency: commodity, increment: increment,
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("pauseWealthAutomation", "/wealth/{account}/automation/pause", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.pauseAutomationCommand(
                account: try call.parameter("account"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("resumeWealthAutomation", "/wealth/{account}/automation/resume", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.resumeAutomationCommand(
                account: try call.parameter("account"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("freezeWealthCard", "/wealth/{account}/card/freeze", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.freezeCardCommand(
                account: try call.parameter("account"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("unfreezeWealthCard", "/wealth/{account}/card/unfreeze", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.unfreezeCardCommand(
                account: try call.parameter("account"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("amendWealthEntry", "/wealth/{account}/entries/{entry}/amendments", fields: ["amount", "currency", "merchant", "destination", "effective_at"]) { body, ledger, call, key in
            try ledger.amendWealthEntryCommand(
                account: try call.parameter("account"), entry: try entry(call),
                amount: body.has("amount") ? try money(body, "amount", ledger) : nil,
                effectiveAt: try effectiveAt(body, ledger),
                merchant: try body.optionalString("merchant"), destination: try body.optionalString("destination"), idempotencyKey: key)
        },
        command("reverseWealthEntry", "/wealth/{account}/entries/{entry}/reversals", fields: []) { _, ledger, call, key in
            try ledger.reverseWealthEntryCommand(account: try call.parameter("account"), entry: try entry(call), idempotencyKey: key)
        },
    ]

    // MARK: Pots

    static let pots: [Definition] = [
        command("createPot", "/pots", fields: ["id", "name", "target", "currency"]) { body, ledger, _, key in
            try ledger.createPotCommand(id: try body.string("id"), name: try body.optionalString("name"), target: try money(body, "target", ledger), idempotencyKey: key)
        },
        command("addToPot", "/pots/{pot}/additions", fields: ["amount", "currency"]) { body, ledger, call, key in
            try ledger.addToPotCommand(id: try call.parameter("pot"), amount: try money(body, "amount", ledger), idempotencyKey: key)
        },
        command("withdrawFromPot", "/pots/{pot}/withdrawals", fields: ["amount", "currency"]) { body, ledger, call, key in
            try ledger.withdrawFromPotCommand(id: try call.parameter("pot"), amount: try money(body, "amount", ledger), idempotencyKey: key)
        },
        command("deletePot", "/pots/{pot}/deletion", fields: []) { _, ledger, call, key in
            try ledger.deletePotCommand(id: try call.parameter("pot"), idempotencyKey: key)
        },
    ]

    // MARK: Budgets and transactions

    static let budgets: [Definition] = [
        command("setBudget", "/budgets", fields: ["category", "month", "maximum", "currency"]) { body, ledger, _, key in
            try ledger.setBudgetCommand(
                category: try category(body, "category"), month: try month(body, "month"),
                maximum: try money(body, "maximum", ledger), idempotencyKey: key)
        },
        command("recordTransaction", "/transactions", fields: ["payee", "category", "amount", "currency", "date", "recurring", "id"]) { body, ledger, _, key in
            try ledger.recordTransactionCommand(
                payee: try body.string("payee"), category: try category(body, "category"),
                amount: try money(body, "amount", ledger), date: try day(body, "date") as LocalDate, recurring: try body.optionalBool("recurring") ?? false,
                id: try body.optionalString("id"), idempotencyKey: key)
        },
        command("deleteBudget", "/budgets/deletion", fields: ["category", "month"]) { body, ledger, _, key in
            try ledger.deleteBudgetCommand(category: try category(body, "category"), month: try month(body, "month"), idempotencyKey: key)
        },
        command("amendTransaction", "/transactions/{transaction}/amendments", fields: ["payee", "category", "amount", "currency", "date", "recurring"]) { body, ledger, call, key in
            try ledger.amendTransactionCommand(
                id: try call.parameter("transaction"), payee: try body.optionalString("payee"),
                category: body.has("category") ? try category(body, "category") : nil,
                amount: body.has("amount") ? try money(body, "amount", ledger) : nil,
                date: body.has("date") ? try day(body, "date") : nil, recurring: try body.optionalBool("recurring"), idempotencyKey: key)
        },
        command("recategoriseTransaction", "/transactions/{transaction}/category", fields: ["category"]) { body, ledger, call, key in
            try ledger.recategoriseCommand(id: try call.parameter("transaction"), category: try category(body, "category"), idempotencyKey: key)
        },
        command("deleteTransaction", "/transactions/{transaction}/deletion", fields: []) { _, ledger, call, key in
            try ledger.deleteTransactionCommand(id: try call.parameter("transaction"), idempotencyKey: key)
        },
        command("connectBank", "/banks", fields: ["id", "name", "consent_expires"]) { body, ledger, _, key in
            try ledger.connectBankCommand(id: try body.string("id"), name: try body.optionalString("name"),
                                          consentExpires: try day(body, "consent_expires"), idempotencyKey: key)
        },
        command("renewBankConsent", "/banks/{bank}/consent", fields: ["expires_on"]) { body, ledger, call, key in
            guard let expires = try day(body, "expires_on") else { throw Problem.invalidField("expires_on", "'expires_on' is required: the consent's last day (YYYY-MM-DD)") }
            return try ledger.renewBankConsentCommand(id: try call.parameter("bank"), expiresOn: expires, idempotencyKey: key)
        },
        command("disconnectBank", "/banks/{bank}/disconnection", fields: []) { _, ledger, call, key in
            try ledger.disconnectBankCommand(id: try call.parameter("bank"), idempotencyKey: key)
        },
        command("importBankTransaction", "/banks/{bank}/transactions", fields: ["external_id", "payee", "category", "amount", "currency", "date"]) { body, ledger, call, key in
            try ledger.importBankTransactionCommand(
                bankId: try call.parameter("bank"), externalId: try body.string("external_id"), payee: try body.string("payee"),
                category: try category(body, "category"), amount: try money(body, "amount", ledger),
                date: try day(body, "date"), idempotencyKey: key)
        },
        command("defineRecurring", "/recurring", fields: ["id", "payee", "category", "amount", "currency", "day_of_month", "start_month", "end_month", "frequency"]) { body, ledger, _, key in
            let dayOfMonth = try body.integer("day_of_month")
            guard let day = Int(exactly: dayOfMonth) else { throw Problem.invalidField("day_of_month", "'day_of_month' is \(dayOfMonth), not a day of the month (1-31)") }
            return try ledger.defineRecurringCommand(
                id: try body.string("id"), payee: try body.string("payee"), category: try category(body, "category"),
                amount: try money(body, "amount", ledger), dayOfMonth: day, startMonth: try month(body, "start_month"),
                endMonth: body.has("end_month") ? try month(body, "end_month") : nil,
                frequency: try body.enumeration("frequency", RecurringFrequency.self, default: .monthly), idempotencyKey: key)
        },
        command("removeRecurring", "/recurring/{recurring}/removal", fields: []) { _, ledger, call, key in
            try ledger.removeRecurringCommand(id: try call.parameter("recurring"), idempotencyKey: key)
        },
        command("generateRecurring", "/recurring-generations", fields: ["month"]) { body, ledger, _, key in
            try ledger.generateRecurringCommand(month: try month(body, "month"), idempotencyKey: key)
        },
        command("setReferenceBalance", "/reference-balance", fields: ["amount", "currency"]) { body, ledger, _, key in
            try ledger.setReferenceBalanceCommand(amount: try money(body, "amount", ledger), idempotencyKey: key)
        },
    ]

    // MARK: Envelopes

    static let envelopes: [Definition] = [
        command("createEnvelope", "/envelopes", fields: ["id", "name", "interval", "budgeted", "currency", "start_date"]) { body, ledger, _, key in
            try ledger.createEnvelopeCommand(
                try body.string("id"), name: try body.string("name"), interval: try body.enumeration("interval", EnvelopeInterval.self),
                budgeted: try money(body, "budgeted", ledger), startDate: try day(body, "start_date") as LocalDate?, idempotencyKey: key)
        },
        command("openEnvelopeAccount", "/envelope-accounts", fields: ["account", "currency", "opening_balance", "effective_at"]) { body, ledger, _, key in
            try ledger.openEnvelopeAccountCommand(
                try body.string("account"), commodity: try currency(body, "currency", ledger),
                openingBalance: body.has("opening_balance") ? try money(body, "opening_balance", ledger) : nil,
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("closeEnvelopeAccount", "/envelope-accounts/{account}/closure", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.closeEnvelopeAccountCommand(try call.parameter("account"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("changeEnvelopeBudget", "/envelopes/{envelope}/budget", fields: ["budgeted", "currency", "interval", "effective_at"]) { body, ledger, call, key in
            try ledger.changeEnvelopeBudgetCommand(
                try call.parameter("envelope"), budgeted: try money(body, "budgeted", ledger),
                interval: body.has("interval") ? try body.enumeration("interval", EnvelopeInterval.self) : nil,
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("fundEnvelope", "/envelopes/{envelope}/fundings", fields: ["amount", "currency", "effective_at"]) { body, ledger, call, key in
            try ledger.fundEnvelopeCommand(try call.parameter("envelope"), amount: try money(body, "amount", ledger), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setEnvelopeRollover", "/envelopes/{envelope}/rollover", fields: ["policy", "effective_at"]) { body, ledger, call, key in
            try ledger.setEnvelopeRolloverCommand(try call.parameter("envelope"), policy: try body.enumeration("policy", RolloverPolicy.self), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("deleteEnvelope", "/envelopes/{envelope}/deletion", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.deleteEnvelopeCommand(try call.parameter("envelope"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("recordEnvelopeTransaction", "/envelope-transactions", fields: ["id", "account", "amount", "rate_to_base", "envelope", "payee", "category", "effective_at"]) { body, ledger, _, key in
            let account = try body.string("account")
            return try ledger.recordEnvelopeTransactionCommand(
                try body.string("id"), account: account, amount: try accountMoney(body, "amount", account: account, ledger),
                rateToBase: try decimal(body, "rate_to_base"), envelope: try body.optionalString("envelope"),
                payee: try body.optionalString("payee") ?? "", category: body.has("category") ? try category(body, "category") : .general,
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("amendEnvelopeTransaction", "/envelope-transactions/{transaction}/amendments", fields: ["amount", "payee", "effective_at"]) { body, ledger, call, key in
            let id = try call.parameter("transaction")
            let amount: Money? = try body.has("amount") ? {
                let account: String?
                do { account = try ledger.envelopeTransactionAccount(id) } catch { throw Problem.from(error) }
                guard let account else { throw Problem.from(LedgerError(.notFound, "there is no envelope transaction '\(id)'")) }
                return try accountMoney(body, "amount", account: account, ledger)
            }() : nil
            return try ledger.amendEnvelopeTransactionCommand(id, amount: amount, payee: try body.optionalString("payee"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("reverseEnvelopeTransaction", "/envelope-transactions/{transaction}/reversals", fields: []) { _, ledger, call, key in
            try ledger.reverseEnvelopeTransactionCommand(try call.parameter("transaction"), idempotencyKey: key)
        },
        command("transferBetweenEnvelopeAccounts", "/envelope-transfers", fields: ["id", "from", "to", "amount", "received", "envelope", "effective_at"]) { body, ledger, _, key in
            let from = try body.string("from"), to = try body.string("to")
            return try ledger.transferBetweenAccountsCommand(
                try body.string("id"), from: from, to: to, amount: try accountMoney(body, "amount", account: from, ledger),
                received: body.has("received") ? try accountMoney(body, "received", account: to, ledger) : nil,
                envelope: try body.optionalString("envelope"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
    ]

    // MARK: Challenges

    static let challenges: [Definition] = [
        command("startChallenge", "/challenges", fields: ["id", "template", "name", "unit", "currency", "account", "effective_at"]) { body, ledger, _, key in
            try ledger.startChallengeCommand(
                try body.string("id"), template: try body.string("template"), name: try body.optionalString("name"),
                unit: try money(body, "unit", ledger), account: try body.optionalString("account"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("completeChallengeStep", "/challenges/{challenge}/steps", fields: ["step", "from", "effective_at"]) { body, ledger, call, key in
            let step: Int? = try body.optionalInteger("step").map { value in
                guard let step = Int(exactly: value) else { throw Problem.invalidField("step", "'step' is \(value), not a step number") }
                return step
            }
            return try ledger.completeChallengeStepCommand(try call.parameter("challenge"), step: step, from: try body.optionalString("from"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
    ]

    // MARK: Net worth

    static let netWorth: [Definition] = [
        command("addAsset", "/assets", fields: ["id", "name", "category", "type", "currency", "country", "sector", "symbol", "effective_at"]) { body, ledger, _, key in
            try ledger.addAssetCommand(
                assetId: try body.string("id"), name: try body.string("name"),
                category: try body.enumeration("category", AssetCategory.self), type: try body.enumeration("type", AssetType.self),
                currency: try currency(body, "currency", ledger), country: try body.optionalString("country"),
                sector: try body.optionalString("sector"), symbol: try body.optionalString("symbol"),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("recordValuation", "/assets/{asset}/valuations", fields: ["value", "currency", "source", "effective_at"]) { body, ledger, call, key in
            try ledger.recordValuationCommand(
                itemKind: .asset, itemId: try call.parameter("asset"), value: try money(body, "value", ledger),
                source: try body.enumeration("source", ValuationSource.self, default: .manual),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("tagAsset", "/assets/{asset}/tags", fields: ["country", "sector", "symbol", "effective_at"]) { body, ledger, call, key in
            try ledger.tagAssetCommand(
                assetId: try call.parameter("asset"), country: try body.optionalString("country"), sector: try body.optionalString("sector"),
                symbol: try body.optionalString("symbol"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("renameAsset", "/assets/{asset}/name", fields: ["name", "category", "effective_at"]) { body, ledger, call, key in
            try ledger.renameAssetCommand(
                assetId: try call.parameter("asset"), name: try body.optionalString("name"),
                category: body.has("category") ? try body.enumeration("category", AssetCategory.self) : nil, effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setAssetPosition", "/assets/{asset}/position", fields: ["quantity", "symbol", "cost_basis", "currency", "effective_at"]) { body, ledger, call, key in
            let symbol = try body.string("symbol")
            let held: Commodity
            do { held = try Commodity.named(symbol) } catch { throw Problem.invalidField("symbol", "'symbol' '\(symbol)': \(error)") }
            let text = try body.string("quantity")
            let quantity: Money
            do { quantity = try Money(parsing: text, commodity: held) } catch {
                throw Problem(.unprocessableContent, "invalid_amount", "'quantity' '\(text)': \(error)", field: "quantity")
            }
            return try ledger.setPositionCommand(
                assetId: try call.parameter("asset"), quantity: quantity,
                costBasis: body.has("cost_basis") ? try money(body, "cost_basis", ledger) : nil, effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("clearValuationOverride", "/assets/{asset}/valuation-override/clearance", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.clearValuationOverrideCommand(try call.parameter("asset"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("removeAsset", "/assets/{asset}/removal", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.removeAssetCommand(try call.parameter("asset"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("addLiability", "/liabilities", fields: ["id", "name", "category", "currency", "linked_asset", "effective_at"]) { body, ledger, _, key in
            try ledger.addLiabilityCommand(
                liabilityId: try body.string("id"), name: try body.string("name"),
                category: try body.enumeration("category", LiabilityCategory.self), currency: try currency(body, "currency", ledger),
                linkedAssetId: try body.optionalString("linked_asset"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("recordLiabilityValuation", "/liabilities/{liability}/valuations", fields: ["value", "currency", "source", "effective_at"]) { body, ledger, call, key in
            try ledger.recordValuationCommand(
                itemKind: .liability, itemId: try call.parameter("liability"), value: try money(body, "value", ledger),
                source: try body.enumeration("source", ValuationSource.self, default: .manual), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("removeLiability", "/liabilities/{liability}/removal", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.removeLiabilityCommand(try call.parameter("liability"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("quotePrice", "/prices", fields: ["symbol", "price", "currency", "source", "effective_at"]) { body, ledger, _, key in
            let symbol = try body.string("symbol")
            let quoted: Commodity
            do { quoted = try Commodity.named(symbol) } catch { throw Problem.invalidField("symbol", "'symbol' '\(symbol)': \(error)") }
            guard let price = try decimal(body, "price") else { throw Problem.missingField("price") }
            // A price keeps its own decimals (80.123 GBP); its currency by the one rule, the base currency by default.
            let currency: Commodity
            if body.has("currency") { currency = try CommandRoutes.currency(body, "currency", ledger) } else {
                do { currency = try ledger.settings().baseCurrency } catch { throw Problem.from(error) }
            }
            return try ledger.quotePriceCommand(
                symbol: quoted, price: price, currency: currency, source: try body.enumeration("source", PriceSource.self, default: .manual),
                effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setFXRate", "/fx-rates", fields: ["base", "quote", "rate", "effective_at"]) { body, ledger, _, key in
            guard let rate = try decimal(body, "rate") else { throw Problem.missingField("rate") }
            return try ledger.setFXRateCommand(
                base: try currency(body, "base", ledger), quote: try currency(body, "quote", ledger), rate: rate, effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setBaseCurrency", "/base-currency", fields: ["currency", "effective_at"]) { body, ledger, _, key in
            try ledger.setBaseCurrencyCommand(try currency(body, "currency", ledger), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setReminder", "/reminders", fields: ["id", "asset", "due_date", "note", "effective_at"]) { body, ledger, _, key in
            try ledger.setReminderCommand(
                reminderId: try body.string("id"), assetId: try body.string("asset"), dueDate: try day(body, "due_date"),
                note: try body.optionalString("note"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("completeReminder", "/reminders/{reminder}/completion", fields: ["effective_at"]) { body, ledger, call, key in
            try ledger.completeReminderCommand(try call.parameter("reminder"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
    ]

    // MARK: Settings

    static let settings: [Definition] = [
        command("declareCommodity", "/commodities", fields: ["code", "scale"]) { body, ledger, _, key in
            try ledger.declareCommodityCommand(code: try body.string("code"), scale: try body.integer("scale"), idempotencyKey: key)
        },
        command("setDueSoonDays", "/settings/due-soon-days", fields: ["days", "effective_at"]) { body, ledger, _, key in
            try ledger.setDueSoonDaysCommand(try body.integer("days"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setPageSize", "/settings/page-size", fields: ["rows", "effective_at"]) { body, ledger, _, key in
            try ledger.setPageSizeCommand(try body.integer("rows"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
        command("setPriceStaleness", "/settings/price-staleness", fields: ["seconds", "effective_at"]) { body, ledger, _, key in
            try ledger.setPriceStalenessCommand(seconds: try body.integer("seconds"), effectiveAt: try effectiveAt(body, ledger), idempotencyKey: key)
        },
    ]

    /// A command route under `/ledgers/{ledger}` (`path` is what follows), `POST`, needing a
    /// key with the ledger's write scope.
    static func command(
        _ operationId: String, _ path: String, fields: Set<String>,
        build: @escaping @Sendable (_ body: JSONBody, _ ledger: Ledger, _ call: Call, _ key: String) throws -> LedgerCommand
    ) -> Definition {
        Definition(
            route: ServiceRoute(method: .post, path: "/ledgers/{ledger}" + path, operationId: operationId, security: .ledger(.write)),
            fields: fields, build: build)
    }

    // MARK: Running a command

    /// Answers a command route: key, body, fields, the ledger's command, its commit. A
    /// refusal (4xx) is kept with its key (``RefusedCommands``): the same key answers the
    /// same refusal forever, unless the engine has committed a command under it.
    static func handle(_ definition: Definition, _ call: Call) async throws -> Response {
        let key = try idempotencyKey(call.request)
        var bytes = try await call.body(limit: call.state.configuration.commandBodyBytesLimit)
        // A `DELETE` may come without a body: it is a command with no fields given.
        if bytes.isEmpty && definition.route.method == .delete { bytes = Array("{}".utf8) }
        let id = try call.ledger
        let refusals = call.state.refusals
        let fingerprint = RefusedCommands.fingerprint(operation: definition.route.operationId, path: call.request.uri.path, body: bytes)
        return try await call.state.pool.with(id) { ledger in
            if let refused = try refusals.answer(ledger: id, key: key),
               try await !call.state.blocking({ try ledger.hasCommitted(idempotencyKey: key) }) {
                guard refused.fingerprint == fingerprint else {
                    throw Problem(.conflict, "idempotency_conflict", "the Idempotency-Key '\(key)' was used for another request, which was refused; use a new key for a new request", field: "Idempotency-Key")
                }
                return refused.response
            }
            do {
                let body = try JSONBody(bytes)
                try body.requireOnly(definition.fields)
                let command: LedgerCommand
                do {
                    command = try definition.build(body, ledger, call, key)
                } catch let error as Problem {
                    throw error
                } catch {
                    throw Problem.from(error)
                }
                let result = try await ledger.run(command)
                var headers = HTTPFields()
                if result.wasAlreadyApplied { headers[replayedField] = "true" }
                // 201 for a change (and for its replay: the first answer again); 200 for a
                // command that found nothing to change and appended nothing. The answer holds
                // the resource the command created or changed, as it is now, and its events.
                let status: HTTPResponse.Status = result.events.isEmpty ? .ok : .created
                let operation = definition.route.operationId
                let answer = try await call.state.blocking { try CommandResources.answer(operation, events: result.events, ledger: ledger, call: call, body: body) }
                if let location = answer.location { headers[.location] = location }
                return Call.json(.object(answer.fields), status: status, headers: headers)
            } catch {
                let problem = Problem.from(error)
                // A refusal of this request is its answer; a conflict over the key, a moved
                // ledger or a server failure is not (the request may be retried).
                if (400..<500).contains(problem.status.code), problem.code != "idempotency_conflict",
                   try await !call.state.blocking({ try ledger.hasCommitted(idempotencyKey: key) }) {
                    try refusals.record(ledger: id, .init(key: key, fingerprint: fingerprint, status: Int(problem.status.code), body: problem.json.text))
                }
                throw problem
            }
        }
    }

    /// The `Idempotency-Key` header: required on every command, 1 to 200 printable characters.
    static func idempotencyKey(_ request: Request) throws -> String {
        guard let key = request.headers[idempotencyKeyField], !key.isEmpty else {
            throw Problem(.badRequest, "idempotency_key_required", "every command needs an Idempotency-Key header (a unique string per intended change, reused on retries)", field: "Idempotency-Key")
        }
        guard key.utf8.count <= 200, key.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw Problem(.badRequest, "invalid_idempotency_key", "the Idempotency-Key is 1 to 200 printable characters", field: "Idempotency-Key")
        }
        return key
    }

    // MARK: Fields

    /// An amount field in the body's `currency` (default: the ledger's base currency), by the
    /// ledger's one currency rule.
    static func money(_ body: JSONBody, _ field: String, _ ledger: Ledger) throws -> Money {
        let text = try body.string(field)
        let commodity: Commodity
        if body.has("currency") {
            commodity = try currency(body, "currency", ledger)
        } else {
            do { commodity = try ledger.settings().baseCurrency } catch { throw Problem.from(error) }
        }
        let money: Money
        do { money = try Money(parsing: text, commodity: commodity) } catch {
            throw Problem(.unprocessableContent, "invalid_amount", "'\(field)' '\(text)': \(error)", field: field)
        }
        do { try ledger.requireCurrency(money, field) } catch let error as LedgerError { throw Problem.ledger(error, field: field) }
        return money
    }

    /// The optional `effective_at` field: a day (its start in the ledger's time zone) or an
    /// instant, not after today; none is now.
    static func effectiveAt(_ body: JSONBody, _ ledger: Ledger) throws -> Instant? {
        try TimeParameters.effectiveAt(try body.optionalString("effective_at"), ledger)
    }

    /// An optional day field (YYYY-MM-DD).
    static func day(_ body: JSONBody, _ field: String) throws -> LocalDate? {
        try body.optionalString(field).map { text in
            guard let day = try? LocalDate(parsing: text) else { throw Problem.invalidField(field, "'\(field)' is '\(text)', not a day (YYYY-MM-DD)") }
            return day
        }
    }

    /// A currency field by the ledger's rule (ISO 4217, built in, or declared).
    static func currency(_ body: JSONBody, _ field: String, _ ledger: Ledger) throws -> Commodity {
        let code = try body.string(field)
        do { _ = try Commodity.named(code) } catch {
            throw Problem(.unprocessableContent, "invalid_currency", "'\(field)' '\(code)': \(error)", field: field)
        }
        do { return try ledger.currency(code) } catch let error as LedgerError {
            throw Problem(.unprocessableContent, "unknown_currency", error.message, field: field)
        }
    }

    /// The `{entry}` path parameter: a wealth entry's sequence number.
    static func entry(_ call: Call) throws -> UInt64 {
        let text = try call.parameter("entry")
        guard let entry = UInt64(text) else { throw Problem.invalidParameter("entry", "'entry' is '\(text)', not an entry number (the sequence of a deposit, purchase or withdrawal)") }
        return entry
    }

    /// An amount field in the currency of a user (envelope) account, as the CLI reads it.
    static func accountMoney(_ body: JSONBody, _ field: String, account: String, _ ledger: Ledger) throws -> Money {
        let text = try body.string(field)
        let found: EnvelopeAccount?
        do { found = try ledger.envelopeAccounts().first { $0.account == account } } catch { throw Problem.from(error) }
        guard let commodity = found?.commodity else {
            throw Problem.from(LedgerError(.notFound, "there is no account '\(account)'; open it first (POST /ledgers/{ledger}/envelope-accounts)"))
        }
        do { return try Money(parsing: text, commodity: commodity) } catch {
            throw Problem(.unprocessableContent, "invalid_amount", "'\(field)' '\(text)' is not an amount in \(commodity.code): \(error)", field: field)
        }
    }

    /// An optional exact decimal field (a rate), given as a string.
    static func decimal(_ body: JSONBody, _ field: String) throws -> ExactDecimal? {
        guard let text = try body.optionalString(field) else { return nil }
        do { return try ExactDecimal(parsing: text) } catch {
            throw Problem.invalidField(field, "'\(field)' is '\(text)', not a decimal number (e.g. \"0.0067\")")
        }
    }

    /// A budget category by the one spelling rule the CLI also reads (`BudgetCategory(parsing:)`):
    /// the stored name (`dining_out`) or the one a person reads (`Dining Out`, `dining-out`), any case.
    static func category(_ body: JSONBody, _ field: String) throws -> BudgetCategory {
        let text = try body.string(field)
        do { return try BudgetCategory(parsing: text) } catch let error as LedgerError {
            throw Problem.invalidField(field, error.message)
        }
    }

    /// A day field (YYYY-MM-DD).
    static func day(_ body: JSONBody, _ field: String) throws -> LocalDate {
        let text = try body.string(field)
        guard let day = try? LocalDate(parsing: text) else { throw Problem.invalidField(field, "'\(field)' is '\(text)', not a day (YYYY-MM-DD)") }
        return day
    }

    static func month(_ body: JSONBody, _ field: String) throws -> Month {
        let text = try body.string(field)
        guard let month = try? Month(parsing: text) else { throw Problem.invalidField(field, "'\(field)' is '\(text)', not a month (YYYY-MM)") }
        return month
    }
}
