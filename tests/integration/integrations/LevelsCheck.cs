// Test driver of integrations/ninjatrader8/GexdeckLevelsCore.cs (compiled together with mcs):
// sets the culture given as the first argument (de-DE), fetches once and prints what the
// indicator would draw, one `id=price` per level, then `status=...`.
using System;
using System.Globalization;
using System.Threading;
using Gexdeck;

public static class LevelsCheck
{
    public static int Main(string[] args)
    {
        var culture = new CultureInfo(args[0]);
        Thread.CurrentThread.CurrentCulture = culture;
        CultureInfo.DefaultThreadCurrentCulture = culture;
        Console.WriteLine("culture=" + culture.Name + " sample=" + (7567.8).ToString(culture));
        string token = LevelsClient.ReadToken(args[3]);
        using (var client = new LevelsClient(args[1], args[2], token, args.Length > 4 ? args[4] : ""))
        {
            var r = client.FetchAsync().Result;
            Console.WriteLine("http=" + r.Status);
            if (r.Ok)
            {
                Console.WriteLine("stale=" + (r.Levels.Stale ? "1" : "0"));
                Console.WriteLine("spot=" + LevelsClient.Format(r.Levels.Spot));
                foreach (var l in r.Levels.Levels)
                    Console.WriteLine(l.Id + "=" + (l.Price == null ? "null:" + l.Reason : LevelsClient.Format(l.Price.Value)));
            }
            Console.WriteLine("status=" + client.StatusText(TimeZoneInfo.Utc));
        }
        return 0;
    }
}
