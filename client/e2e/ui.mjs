console.log("ui stub"); process.exit(0)
